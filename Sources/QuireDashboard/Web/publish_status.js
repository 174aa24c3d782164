// What became of a save: the watcher's publish event names the save, and the editor says
// "live in v000043, 12 ms after save", or the errors that kept the page on its last good
// version. `data-notified-at` keeps when the event arrived (ms since 1970), `data-publish-ms` the
// service's time from the save's write to the publish.
import { el, clear } from './dom.js';
import { onPublish, ownSaves } from './events.js';

const recentLimit = 20;
const patience = 15000;

export class PublishStatus {
    constructor(site, pageID) {
        this.site = site;
        this.pageID = pageID;
        this.waiting = null;
        this.recent = [];
        // Whether a save is on its way: a build of the page that carries none of this dashboard's
        // saves, while none is, was caused elsewhere (another tab, a text editor, a git pull).
        this.inFlight = false;
        /** Called with the version when the page was changed and published elsewhere. */
        this.onElsewhere = null;
        this.element = el('div', { class: 'publish-status', role: 'status', 'aria-live': 'polite', 'aria-label': 'Publish status' });
        this.stop = onPublish((data, arrived) => this.received(data, arrived));
    }

    say(message, kind = '') {
        clear(this.element);
        this.element.className = `publish-status ${kind}`;
        this.element.append(el('p', { text: message }));
    }

    /** The moment a save is sent: the build of it can come before its answer. */
    sending() {
        this.sentAt = performance.now();
        this.inFlight = true;
    }

    /** The save was not made (refused, or not sent after a question). */
    abandoned() {
        this.inFlight = false;
    }

    /** After a save: its event may already have come (a publish is quick), else it will. */
    waitFor(saveID, answeredAt) {
        this.waiting = { saveID, answeredAt, sentAt: this.sentAt ?? answeredAt };
        ownSaves.add(saveID);
        this.inFlight = false;
        this.say('Saved. Waiting for the watcher to publish…');
        delete this.element.dataset.notifiedAt;
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
        if (this.settle(data, arrived) || this.waiting || this.inFlight) return;
        const touched = (data.pages || []).includes(this.pageID);
        const mine = (data.saves || []).some((save) => ownSaves.has(save.save_id));
        if (touched && !mine && data.outcome === 'published') this.onElsewhere?.(data.version);
    }

    /**
     * The build that carried the save: the event naming its id, or else the first build since it
     * was sent that touched this page and names no save (a build can name none when it ran before
     * the service noted it); one naming other saves carried those, not this one.
     */
    settle(data, arrived) {
        if (!this.waiting) return false;
        const saves = data.saves || [];
        const named = saves.find((s) => s.save_id === this.waiting.saveID);
        const touched = saves.length === 0 && arrived >= this.waiting.sentAt && ((data.pages || []).includes(this.pageID)
            || (data.diagnostics || []).some((d) => d.page === this.pageID));
        if (!named && !touched) return false;
        const save = named || {};
        this.waiting = null;
        clearTimeout(this.timer);
        const errors = (data.diagnostics || []).filter((d) => d.severity === 'error' && (!d.page || d.page === this.pageID));
        const after = typeof save.ms === 'number' ? `, ${Math.round(save.ms)} ms after save` : '';
        if (data.outcome === 'published' && errors.length === 0) {
            this.say(`Live in ${data.version}${after}.`, 'live');
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
        this.element.dataset.notifiedAt = (performance.timeOrigin + arrived).toFixed(1);
        return true;
    }

    close() {
        this.stop();
        clearTimeout(this.timer);
    }
}
