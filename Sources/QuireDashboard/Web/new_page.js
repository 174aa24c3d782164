// A new page: its id (checked here against the naming rule and the site's pages, and again
// by the service), its format, and what it starts from: nothing, sections of picked types, or
// a copy of another page.
import { el, clear, labelled, uniqueId } from './dom.js';
import { request, apiPath } from './request.js';
import { loadSchema } from './schema.js';
import { select } from './fields.js';

/** The id rule: `[a-z0-9_-]` segments joined by `/`. */
const idRule = /^[a-z0-9_-]+(\/[a-z0-9_-]+)*$/;

export function idProblem(id, existing) {
    if (!id) return 'give the page an id';
    if (!idRule.test(id)) return 'use lower-case letters, digits, "-" and "_", with "/" between folders (guides/range-safety)';
    if (existing.has(id)) return `a page "${id}" exists already: pick another id`;
    return null;
}

export async function openNewPage(view, site) {
    const [schema, listed] = await Promise.all([loadSchema(site), request('GET', apiPath('sites', site, 'pages'))]);
    const pages = Array.isArray(listed.body) ? listed.body.map((p) => p.id) : [];
    const existing = new Set(pages);
    const messageID = uniqueId('id-message');
    const id = el('input', { type: 'text', autocomplete: 'off', spellcheck: 'false', required: true, 'aria-describedby': messageID, oninput: () => checkID() });
    const idMessage = el('p', { class: 'field-message error', id: messageID, 'aria-live': 'polite' });
    const format = select(['yaml', 'json'], 'yaml', () => {});
    const start = uniqueId('start');
    const choice = (value, text, checked = false) => el('label', { class: 'check' },
        el('input', { type: 'radio', name: start, value, checked, onchange: () => showStart() }), ` ${text}`);
    const typeBoxes = schema.types.map((type) => el('label', { class: 'check' }, el('input', { type: 'checkbox', value: type.name }), ` ${type.name}`));
    const typesBox = el('fieldset', { hidden: true }, el('legend', { text: 'Section types' }), typeBoxes);
    const copyOf = select(pages, pages[0] ?? '', () => {});
    const copyBox = el('div', { hidden: true }, labelled('Page to copy', copyOf));
    clear(view);
    view.append(
        el('nav', { class: 'crumbs', 'aria-label': 'Breadcrumbs' }, el('a', { href: '#/', text: 'Sites' }), ' / ',
            el('a', { href: `#/sites/${site}`, text: site }), ' / ', el('span', { text: 'new page' })),
        el('h2', { text: `New page in ${site}` }),
        el('form', { class: 'new-page', 'aria-label': 'New page', novalidate: true, onsubmit: (e) => { e.preventDefault(); create(); } },
            labelled('Page id', id), idMessage, labelled('Format', format),
            el('fieldset', {}, el('legend', { text: 'Start from' }),
                choice('blank', 'a blank page', true), choice('sections', 'sections of these types'), choice('copy', 'a copy of a page')),
            typesBox, copyBox,
            el('button', { type: 'submit', class: 'primary', text: 'Create page' })));

    function chosen() {
        return view.querySelector(`input[name="${start}"]:checked`).value;
    }
    function showStart() {
        typesBox.hidden = chosen() !== 'sections';
        copyBox.hidden = chosen() !== 'copy';
    }
    function checkID() {
        const problem = idProblem(id.value.trim(), existing);
        idMessage.textContent = problem && id.value ? problem : '';
        if (problem && id.value) id.setAttribute('aria-invalid', 'true'); else id.removeAttribute('aria-invalid');
        return problem;
    }
    async function create() {
        const problem = checkID();
        if (problem) {
            idMessage.textContent = problem;
            id.setAttribute('aria-invalid', 'true');
            id.focus();
            return;
        }
        const how = chosen();
        const body = {
            id: id.value.trim(),
            format: format.value,
            copy_of: how === 'copy' ? copyOf.value : null,
            sections: how === 'sections' ? typeBoxes.map((box) => box.firstChild).filter((box) => box.checked).map((box) => box.value) : [],
        };
        const answer = await request('POST', apiPath('sites', site, 'pages'), { json: body, expect: [409] });
        if (answer.status === 409) {
            idMessage.textContent = answer.body?.error ?? `a page "${body.id}" exists already`;
            return;
        }
        location.hash = `#/sites/${site}/pages/${answer.body.id}`;
    }
    return { close() {}, canLeave: () => true };
}
