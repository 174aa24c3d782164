// What became of a save: the watcher's publish event names the save, and the editor says
// "live in v000043, 12 ms after save", or the errors that kept the page on its last good
// version. `data-notified-ms` keeps the time from the save's answer to the event's arrival.
import { el, clear } from './dom.js';
import { onPublish } from './events.js';

const recentLimit = 20;
const patience = 15000;

export class PublishStatus {
    constructor(site, pageID) {
        this.site = site;
        this.pageID = pageID;
        this.waiting = null;
        this.recent = [];
        this.element = el('div', { class: 'publish-status', role: 'status', 'aria-live': 'polite', 'aria-label': 'Publish status' });
        this.stop = onPublish((data, arrived) => this.received(data, arrived));
    }

    say(message, kind = '') {
        clear(this.element);
        this.element.className = `publish-status ${kind}`;
        this.element.append(el('p', { text: message }));
    }

    /** After a save: its event may already have come (a publish is quick), else it will. */
    waitFor(saveID, answeredAt) {
        this.waiting = { saveID, answeredAt };
        this.say('Saved. Waiting for the watcher to publish…');
        delete this.element.dataset.notifiedMs;
        delete this.element.dataset.publishMs;
        clearTimeout(this.timer);
        this.timer = setTimeout(() => {
            if (this.waiting?.saveID === saveID) this.say('Saved, but the watcher has not published it yet: is it running?', 'warning');
        }, patience);
        for (const [data, arrived] of this.recent) if (this.settle(data, arrived)) return;
    }

    received(data, arrived) {
        if (data.site !== this.site) return;
        this.recent.push([data, arrived]);
        if (this.recent.length > recentLimit) this.recent.shift();
        this.settle(data, arrived);
    }

    settle(data, arrived) {
        const save = this.waiting && (data.saves || []).find((s) => s.save_id === this.waiting.saveID);
        if (!save) return false;
        const waited = this.waiting;
        this.waiting = null;
        clearTimeout(this.timer);
        const errors = (data.diagnostics || []).filter((d) => d.severity === 'error' && (!d.page || d.page === this.pageID));
        const ms = typeof save.ms === 'number' ? `${Math.round(save.ms)} ms` : 'moments';
        if (data.outcome === 'published' && errors.length === 0) {
            this.say(`Live in ${data.version}, ${ms} after save.`, 'live');
        } else if (data.outcome === 'unchanged' && errors.length === 0) {
            this.say(`Saved; nothing changed for apps (still ${data.version ?? 'the same version'}).`, 'live');
        } else {
            this.say(`Not live: the save has ${errors.length || 'some'} error${errors.length === 1 ? '' : 's'}; apps keep the last good version${data.version ? ` (${data.version})` : ''}.`, 'error');
            const list = this.element.appendChild(el('ul'));
            for (const d of errors) list.append(el('li', { text: `${d.key_path ? d.key_path + ': ' : ''}${d.message}` }));
        }
        this.element.dataset.outcome = data.outcome;
        this.element.dataset.version = data.version ?? '';
        this.element.dataset.publishMs = String(save.ms ?? '');
        this.element.dataset.notifiedMs = (Math.max(arrived, waited.answeredAt) - waited.answeredAt).toFixed(1);
        return true;
    }

    close() {
        this.stop();
        clearTimeout(this.timer);
    }
}
