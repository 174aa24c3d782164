// Questions that must be answered before something is lost: a modal <dialog> with real
// buttons, so keyboards and tests find them by name.
import { el } from './dom.js';

/**
 * `await ask({title, message, confirm: 'Delete', cancel: 'Cancel', details})` -> true when the
 * confirming button was pressed. `details` are nodes shown under the message.
 */
export function ask({ title, message, confirm, cancel = 'Cancel', details = [] }) {
    return new Promise((resolve) => {
        const dialog = el('dialog', { class: 'ask', 'aria-labelledby': 'ask-title' });
        const finish = (answer) => {
            dialog.close();
            dialog.remove();
            resolve(answer);
        };
        const buttons = el('div', { class: 'buttons' });
        if (confirm) buttons.append(el('button', { type: 'button', class: 'danger', text: confirm, onclick: () => finish(true) }));
        buttons.append(el('button', { type: 'button', text: cancel, onclick: () => finish(false) }));
        dialog.append(el('h2', { id: 'ask-title', text: title }), el('p', { text: message }), ...details, buttons);
        dialog.addEventListener('cancel', (event) => {
            event.preventDefault();
            finish(false);
        });
        document.body.append(dialog);
        dialog.showModal();
    });
}

/** A read-only text for a dialog, labelled. */
export function shownText(label, text) {
    const area = el('textarea', { readonly: true, rows: 14, spellcheck: 'false', value: text });
    area.value = text;
    const id = `shown-${label.replace(/\W+/g, '-').toLowerCase()}`;
    area.id = id;
    return el('div', { class: 'shown-text' }, el('label', { for: id, text: label }), area);
}
