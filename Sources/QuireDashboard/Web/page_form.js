// A page source as a form: the envelope's fields (from the schema's `envelope`), its section
// lists, then the sections. The form edits `doc` in place, so keys it has no control for
// (`$schema`, `page_id`, anything new) are saved as they were.
import { el, clear } from './dom.js';
import { fieldControl } from './fields.js';
import { sectionList } from './sections.js';

/** Used when the service's schema names no envelope fields. */
const defaultEnvelope = [
    { name: 'title', kind: 'text', required: true },
    { name: 'ttl', kind: 'integer' },
    { name: 'page_size', kind: 'integer' },
    { name: 'publish_at', kind: 'date' },
    { name: 'expires_at', kind: 'date' },
    { name: 'draft', kind: 'boolean' },
    { name: 'nav', kind: 'sections' },
    { name: 'header', kind: 'sections' },
    { name: 'footer', kind: 'sections' },
];

/**
 * Draws the form for `doc` into `container`; `changed()` after every edit. Structural edits
 * (a section added, moved, removed) redraw it; the returned function redraws it too.
 */
export function renderForm(container, doc, { schema, changed }) {
    const context = { schema, changed, rerender: () => draw() };
    function draw() {
        const focusedPath = document.activeElement?.closest?.('[data-key-path]')?.dataset.keyPath;
        clear(container);
        const envelope = el('fieldset', { class: 'envelope', 'data-key-path': '' }, el('legend', { text: 'Page' }));
        const fields = schema.envelope.length ? schema.envelope : defaultEnvelope;
        const lists = fields.filter((f) => f.kind === 'sections' && f.name !== 'sections').map((f) => f.name);
        for (const spec of fields) {
            if (spec.name !== 'sections' && !lists.includes(spec.name)) envelope.append(fieldControl(spec, doc, spec.name, context));
        }
        container.append(envelope);
        for (const list of lists) container.append(collapsible(list, sectionList(list, doc, context), Array.isArray(doc[list])));
        container.append(sectionList('sections', doc, context));
        if (focusedPath !== undefined) container.querySelector(`[data-key-path="${CSS.escape(focusedPath)}"]`)?.focus?.();
    }
    draw();
    return draw;
}

/** The envelope's nav/header/footer lists are folded away until used. */
function collapsible(name, content, open) {
    return el('details', { class: 'envelope-list', open }, el('summary', { text: `${name} sections` }), content);
}
