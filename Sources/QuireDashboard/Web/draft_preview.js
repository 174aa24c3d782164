// The live preview beside the form: an iframe of preview.html, whose script is the one every
// published preview runs (`preview.js`, served by the service from QuireCore's
// PreviewPageScript). The draft's page as the pipeline rendered it in memory (`rendered` of a
// check) is posted to it, for the locale and audience picked here.
import { el, labelled } from './dom.js';
import { select } from './fields.js';

const everyone = '(everyone)';

export class DraftPreview {
    constructor(container, { site, pageID, schema }) {
        this.site = site;
        this.pageID = pageID;
        this.rendered = null;
        this.serial = 0;
        this.ready = false;
        this.locale = schema.defaultLocale;
        this.audience = everyone;
        const locales = schema.locales.length ? schema.locales : [schema.defaultLocale];
        const localePicker = select(locales, this.locale, (v) => { this.locale = v; this.post(); });
        const audiencePicker = select([everyone, ...schema.audiences], everyone, (v) => { this.audience = v; this.post(); });
        this.note = el('p', { class: 'preview-note', role: 'status' });
        this.frame = el('iframe', { src: 'preview.html', title: 'Preview', class: 'preview-frame', referrerpolicy: 'no-referrer' });
        this.onMessage = (event) => {
            if (event.source !== this.frame.contentWindow || event.origin !== location.origin) return;
            if (event.data && event.data.previewReady) {
                this.ready = true;
                this.post();
            }
        };
        window.addEventListener('message', this.onMessage);
        container.append(
            el('div', { class: 'preview-pickers' }, labelled('Preview locale', localePicker), labelled('Preview audience', audiencePicker)),
            this.note, this.frame);
    }

    /** A check's `rendered`, or null when the draft has errors (the last good draw stays). */
    update(rendered) {
        if (rendered && typeof rendered === 'object') {
            this.rendered = rendered;
            this.note.textContent = '';
        } else {
            this.note.textContent = this.rendered ? 'The draft has errors: the preview shows its last version without errors.' : 'The draft has errors: nothing to preview yet.';
        }
        this.post();
    }

    post() {
        if (!this.ready || !this.rendered) return;
        const forLocale = this.rendered[this.locale] || this.rendered[Object.keys(this.rendered)[0]];
        if (!forLocale) return;
        const variant = this.audience !== everyone && forLocale.audiences ? forLocale.audiences[this.audience] : null;
        this.serial += 1;
        this.frame.contentWindow.postMessage({
            page: variant || forLocale.page,
            locale: this.locale,
            pageID: this.pageID,
            assetRoot: `/${this.site}/current/`,
            serial: this.serial,
        }, location.origin);
    }

    close() {
        window.removeEventListener('message', this.onMessage);
    }
}
