// The one place errors and notices are shown: every request's failure ends up here.
import { el, clear } from './dom.js';

const errors = () => document.getElementById('messages');
const notices = () => document.getElementById('notices');

export function showError(message) {
    const box = errors();
    clear(box);
    box.append(
        el('p', { text: message }),
        el('button', { type: 'button', text: 'Dismiss', onclick: () => { clear(box); box.hidden = true; } }),
    );
    box.hidden = false;
}

export function clearError() {
    const box = errors();
    clear(box);
    box.hidden = true;
}

let noticeAge = 0;

export function showNotice(message) {
    const box = notices();
    box.textContent = message;
    box.hidden = !message;
    noticeAge = 0;
}

/** On each navigation: a notice outlives the one that follows it ("Deleted …" on the page list), not the next. */
export function ageNotice() {
    noticeAge += 1;
    if (noticeAge > 1) showNotice('');
}
