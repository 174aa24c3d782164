// A page's editor: the form (or the text), its diagnostics and the live preview, checked by the
// service after each pause in typing, and the toolbar that saves, deletes and uploads.
//
//   form/text edit -> 300 ms pause -> POST check -> diagnostics at fields / lines + preview
//   Save -> PUT (base) -> the watcher publishes -> event -> "live in v…, N ms after save"
import { el, clear, labelled, deepCopy } from './dom.js';
import { request, apiPath } from './request.js';
import { loadSchema } from './schema.js';
import { renderForm } from './page_form.js';
import { TextMode } from './text_mode.js';
import { showAtFields } from './diagnostics.js';
import { DraftPreview } from './draft_preview.js';
import { PublishStatus } from './publish_status.js';
import { savePage, deletePage } from './saving.js';
import { uploadAsset } from './assets.js';
import { showError, clearError } from './messages.js';

const pause = 300;

export async function openEditor(view, site, pageID) {
    const [schema, answer] = await Promise.all([loadSchema(site, { fresh: true }), request('GET', apiPath('sites', site, 'pages', pageID))]);
    const page = answer.body;
    const state = {
        site, pageID, path: page.path, format: page.format, base: page.base, hasComments: page.has_comments === true,
        // `docText`: the text `doc` was read from (or that a save of it writes), while the form has
        // not changed it.
        doc: page.document, docText: page.text, formEdited: false, dirty: false,
        mode: page.document && typeof page.document === 'object' ? 'form' : 'text',
    };
    clear(view);
    clearError();
    const formBox = el('form', { class: 'page-form', 'aria-label': 'Page form', novalidate: true, onsubmit: (e) => e.preventDefault() });
    const textBox = el('div', { class: 'text-mode', hidden: true });
    const summary = el('div', { class: 'diagnostics-summary', role: 'status', 'aria-label': 'Diagnostics', hidden: true });
    const previewBox = el('aside', { class: 'preview', 'aria-label': 'Live preview' });
    const publish = new PublishStatus(site, pageID);
    const formButton = el('button', { type: 'button', text: 'Form', 'aria-pressed': 'true', onclick: () => switchTo('form') });
    const textButton = el('button', { type: 'button', text: 'Text', 'aria-pressed': 'false', onclick: () => switchTo('text') });
    const upload = el('input', { type: 'file', accept: 'image/jpeg,image/png,image/webp,image/gif', onchange: () => uploadChosen() });
    view.append(
        el('nav', { class: 'crumbs', 'aria-label': 'Breadcrumbs' }, el('a', { href: '#/', text: 'Sites' }), ' / ',
            el('a', { href: `#/sites/${site}`, text: site }), ' / ', el('span', { text: pageID })),
        el('h2', {}, 'Page ', el('code', { text: pageID })),
        el('p', { class: 'muted', text: `pages/${site}/${page.path} · ${page.format === 'json' ? 'JSON' : 'YAML'}${state.hasComments ? ' · has comments' : ''}` }),
        el('div', { class: 'toolbar', role: 'toolbar', 'aria-label': 'Page actions' },
            el('div', { class: 'mode', role: 'group', 'aria-label': 'Edit as' }, formButton, textButton),
            el('button', { type: 'button', class: 'primary', text: 'Save', onclick: () => save() }),
            el('button', { type: 'button', class: 'danger', text: 'Delete page', onclick: () => remove() }),
            labelled('Upload image', upload, { class: 'field upload' })),
        publish.element,
        el('div', { class: 'editor-grid' }, el('div', { class: 'editor-main' }, summary, formBox, textBox), previewBox),
    );
    const preview = new DraftPreview(previewBox, { site, pageID, schema });
    const text = new TextMode(textBox, { format: state.format, changed: () => edited() });
    let redrawForm = () => {};
    if (state.doc) redrawForm = renderForm(formBox, state.doc, { schema, changed: () => { state.formEdited = true; edited(); } });
    if (state.mode === 'text') showMode('text');
    text.text = state.docText;

    let timer = null;
    let serial = 0;
    let inFlight = null;
    function edited() {
        state.dirty = true;
        clearTimeout(timer);
        timer = setTimeout(check, pause);
    }
    function draft() {
        if (state.mode === 'text') return { id: pageID, format: state.format, text: text.text };
        if (!state.formEdited) return { id: pageID, format: state.format, text: state.docText };
        return { id: pageID, format: state.format, document: state.doc };
    }
    async function check(body = draft()) {
        const mine = ++serial;
        inFlight?.abort();
        inFlight = new AbortController();
        let answer;
        try {
            answer = (await request('POST', apiPath('sites', site, 'check'), { json: body, signal: inFlight.signal })).body;
        } catch (error) {
            if (error.name === 'AbortError') return null;
            throw error;
        }
        if (mine !== serial) return null;
        showDiagnostics(answer.diagnostics || []);
        preview.update(answer.rendered);
        return answer;
    }
    function showDiagnostics(diagnostics) {
        if (state.mode === 'text') {
            text.showDiagnostics(diagnostics);
            summary.hidden = true;
        } else {
            showAtFields(formBox, summary, diagnostics);
        }
    }
    function showMode(mode) {
        state.mode = mode;
        formBox.hidden = mode !== 'form';
        textBox.hidden = mode !== 'text';
        formButton.setAttribute('aria-pressed', String(mode === 'form'));
        textButton.setAttribute('aria-pressed', String(mode === 'text'));
        if (mode === 'text') text.refresh();
    }

    // Form -> text shows the file's own text while the form has not changed it, else the text a
    // save would write; text -> form takes the document the service parsed from the text.
    async function switchTo(mode) {
        if (mode === state.mode) return;
        if (mode === 'text') {
            if (state.formEdited) {
                const answer = await check({ id: pageID, format: state.format, document: state.doc });
                if (!answer || typeof answer.text !== 'string') return;
                state.docText = answer.text;
                state.formEdited = false;
            }
            text.text = state.docText;
            showMode('text');
            check();
            return;
        }
        if (text.text !== state.docText || !state.doc) {
            const answer = await check({ id: pageID, format: state.format, text: text.text });
            if (!answer) return;
            const doc = answer.document !== undefined ? answer.document : parsedJSON(text.text);
            if (!doc || typeof doc !== 'object' || Array.isArray(doc)) {
                showError('The text does not parse as a page: fix what its diagnostics say in the text first, then switch to the form.');
                return;
            }
            state.doc = doc;
            state.docText = text.text;
            state.formEdited = false;
            redrawForm = renderForm(formBox, state.doc, { schema, changed: () => { state.formEdited = true; edited(); } });
        }
        showMode('form');
        check();
    }
    function parsedJSON(source) {
        if (state.format !== 'json') return null;
        try { return JSON.parse(source); } catch { return null; }
    }

    async function save() {
        clearTimeout(timer);
        const body = state.mode === 'text' || !state.formEdited ? { text: state.mode === 'text' ? text.text : state.docText } : { document: state.doc };
        publish.say('Saving…');
        publish.sending();
        let saved = null;
        try {
            saved = await savePage(state, body);
        } finally {
            if (!saved) publish.say('Not saved.', 'error');
        }
        if (!saved) return;
        state.base = saved.base;
        state.dirty = false;
        publish.waitFor(saved.save_id, saved.answeredAt);
        check();
    }
    async function remove() {
        if (await deletePage(state)) {
            state.dirty = false;
            location.hash = `#/sites/${site}`;
        }
    }
    async function uploadChosen() {
        const file = upload.files[0];
        if (!file) return;
        const path = await uploadAsset(site, file);
        upload.value = '';
        if (!schema.assets.includes(path)) schema.assets.push(path);
        schema.assets.sort();
        redrawForm();
        publish.say(`Uploaded ${path}: pick it in an image field.`);
    }

    const saveKey = (event) => {
        if ((event.ctrlKey || event.metaKey) && event.key === 's') {
            event.preventDefault();
            save();
        }
    };
    window.addEventListener('keydown', saveKey);
    check();
    return {
        canLeave: () => !state.dirty,
        close: () => { preview.close(); publish.close(); clearTimeout(timer); window.removeEventListener('keydown', saveKey); },
    };
}
