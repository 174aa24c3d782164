// A page's strings in one locale, side by side: source and translation, filtered by state; a
// stale string shows the word diff of its old and new source; placeholders, link targets and
// emphasis marks are protected chips (inserted by a click, flagged when dropped); the page in
// that locale is previewed beside the strings as the pipeline renders the unsaved text. Save
// writes the page's translation file in its own format (the service checks it as an import).
// Export and import are `quire l10n export` and `import` through the service.
import { el, clear, labelled } from './dom.js';
import { request, apiPath } from './request.js';
import { siteNav } from './site_nav.js';
import { wordDiff } from './word_diff.js';
import { DraftPreview } from './draft_preview.js';
import { PublishStatus } from './publish_status.js';
import { showNotice } from './messages.js';
import { may } from './roles.js';

const codePattern = /\{[A-Za-z0-9_.-]+\}|\]\([^)\s]+\)|\*\*|__/g;

/** The protected inline codes of a text, in order: `{count}`, `](/guides/x)`, `**`. */
export function inlineCodes(text) {
    return text.match(codePattern) || [];
}

function missingCodes(source, translation) {
    const left = [...inlineCodes(translation)];
    const missing = [];
    for (const code of inlineCodes(source)) {
        const at = left.indexOf(code);
        if (at >= 0) left.splice(at, 1);
        else missing.push(code);
    }
    return missing;
}

/**
 * Keeps a translation's codes whole: an edit that would change part of a placeholder, link target
 * or emphasis mark (a Backspace after `{count}`, typing inside it) is refused, as a CAT tool's
 * tags are; a code selected whole can still be cut and pasted elsewhere, or deleted on purpose.
 */
function protectCodes(area, source) {
    const protectedCodes = new Set(inlineCodes(source));
    area.addEventListener('beforeinput', (event) => {
        let start = area.selectionStart;
        let end = area.selectionEnd;
        if (start === end && event.inputType.startsWith('delete')) {
            if (event.inputType.includes('Backward')) start = Math.max(0, start - 1);
            else end += 1;
        }
        for (const match of area.value.matchAll(codePattern)) {
            if (!protectedCodes.has(match[0])) continue;
            const [from, to] = [match.index, match.index + match[0].length];
            const whole = start <= from && end >= to;
            const touches = start === end ? start > from && start < to : start < to && end > from;
            if (touches && !whole) {
                event.preventDefault();
                area.dispatchEvent(new CustomEvent('protected', { detail: match[0] }));
                return;
            }
        }
    });
}

/** Text with its codes as chips (spans), for the source column. */
function withChips(text) {
    const nodes = [];
    let last = 0;
    for (const match of text.matchAll(codePattern)) {
        if (match.index > last) nodes.push(text.slice(last, match.index));
        nodes.push(el('span', { class: 'chip', title: 'protected: keep it', text: match[0] }));
        last = match.index + match[0].length;
    }
    nodes.push(text.slice(last));
    return nodes;
}

export async function openTranslate(view, site, locale, pageID) {
    const page = (await request('GET', apiPath('sites', site, 'l10n', locale, 'pages', pageID))).body;
    const canTranslate = await may(site, 'translator');
    let base = page.base;
    const edits = new Map();
    const rows = new Map();
    const status = new PublishStatus(site, pageID);
    const filter = el('select', { onchange: () => applyFilter() },
        el('option', { value: 'todo', text: 'missing and stale' }), el('option', { value: 'missing', text: 'missing' }),
        el('option', { value: 'stale', text: 'stale' }), el('option', { value: 'all', text: 'all' }));
    const list = el('div', { class: 'strings', role: 'list', 'aria-label': `Strings of ${pageID} in ${locale}` });
    const previewBox = el('div', { class: 'translate-preview' });
    const preview = new DraftPreview(previewBox, { site, pageID, schema: { defaultLocale: locale, locales: [locale], audiences: [] } });
    let timer = null;

    for (const string of page.strings) {
        const area = el('textarea', {
            rows: string.source.length > 80 ? 4 : 2, dir: page.direction, lang: locale, spellcheck: 'true',
            'aria-label': `Translation of ${string.key}`, disabled: !canTranslate,
            oninput: () => { edits.set(string.key, area.value); checkCodes(); schedulePreview(); },
        });
        area.value = string.translation ?? '';
        protectCodes(area, string.source);
        const chipBar = el('div', { class: 'chips', 'aria-label': `Protected codes of ${string.key}` });
        const problem = el('p', { class: 'string-error', role: 'alert', hidden: true });
        function checkCodes() {
            const missing = missingCodes(string.source, area.value);
            for (const chip of chipBar.children) chip.classList.toggle('missing', area.value !== '' && missing.includes(chip.dataset.code));
        }
        for (const code of inlineCodes(string.source)) {
            chipBar.append(el('button', {
                type: 'button', class: 'chip', dataset: { code }, text: code, 'aria-label': `Insert ${code}`, disabled: !canTranslate,
                onclick: () => {
                    const at = area.selectionStart ?? area.value.length;
                    area.value = area.value.slice(0, at) + code + area.value.slice(area.selectionEnd ?? at);
                    area.dispatchEvent(new Event('input'));
                    area.focus();
                },
            }));
        }
        const diff = string.state === 'stale' && string.old_source !== null
            ? el('div', { class: 'word-diff', 'aria-label': `Source change of ${string.key}` },
                el('p', { class: 'muted', text: 'The source changed since it was translated:' }),
                el('p', {}, wordDiff(string.old_source, string.source).map((part) =>
                    part.kind === 'same' ? part.text : el(part.kind === 'removed' ? 'del' : 'ins', { text: part.text }))))
            : null;
        const row = el('div', { class: `string ${string.state}`, role: 'listitem', dataset: { key: string.key, state: string.state } },
            el('div', { class: 'string-head' }, el('code', { text: string.key }), el('span', { class: `state ${string.state}`, text: string.state }),
                string.fallback ? el('span', { class: 'muted', text: ` shown from ${string.fallback}` }) : null),
            el('div', { class: 'side-by-side' }, el('div', { class: 'source', lang: 'und' }, withChips(string.source)), el('div', {}, area, chipBar)),
            diff, problem);
        rows.set(string.key, { row, area, problem, string });
        list.append(row);
        checkCodes();
    }

    function applyFilter() {
        for (const { row, string } of rows.values()) {
            const wanted = filter.value;
            row.hidden = !(wanted === 'all' || string.state === wanted || (wanted === 'todo' && string.state !== 'translated'));
        }
    }

    function schedulePreview() {
        clearTimeout(timer);
        timer = setTimeout(() => refreshPreview(), 250);
    }

    async function refreshPreview() {
        const answer = await request('POST', apiPath('sites', site, 'l10n', locale, 'check', pageID), { json: { strings: Object.fromEntries(edits) }, expect: [] });
        const body = answer.body;
        showProblems(body.diagnostics.filter((d) => d.severity === 'error').map((d) => ({ key: d.key_path, message: d.message })));
        preview.update(body.rendered[locale] ? { [locale]: body.rendered[locale] } : null);
    }

    function showProblems(errors) {
        for (const { problem, area } of rows.values()) {
            problem.hidden = true;
            problem.textContent = '';
            area.removeAttribute('aria-invalid');
        }
        for (const error of errors) {
            const target = rows.get(error.key);
            if (!target) continue;
            target.problem.hidden = false;
            target.problem.textContent = error.message;
            target.area.setAttribute('aria-invalid', 'true');
            target.row.hidden = false;
        }
    }

    async function save() {
        const answer = await request('PUT', apiPath('sites', site, 'l10n', locale, 'pages', pageID), {
            json: { base, strings: Object.fromEntries(edits) }, expect: [409, 422],
        });
        if (answer.status === 422) {
            showProblems(answer.body.errors || []);
            status.say(`Not saved: ${answer.body.error}`, 'error');
            return;
        }
        if (answer.status === 409) {
            status.say(`Not saved: ${answer.body.error}`, 'error');
            return;
        }
        showProblems([]);
        base = answer.body.base;
        edits.clear();
        showNotice(`Saved ${answer.body.path}`);
        status.waitFor(answer.body.save_id, performance.now());
    }

    const format = el('select', {}, el('option', { value: 'xliff12', text: 'XLIFF 1.2' }), el('option', { value: 'xliff20', text: 'XLIFF 2.0' }), el('option', { value: 'po', text: 'PO' }));
    const only = el('select', {}, el('option', { value: 'missing,stale', text: 'missing and stale' }), el('option', { value: 'missing,stale,translated', text: 'all' }));
    const exportLink = el('a', { class: 'button', text: 'Export', download: '' });
    const updateExport = () => { exportLink.href = `${apiPath('sites', site, 'l10n', locale, 'export', pageID)}?format=${format.value}&only=${only.value}`; };
    format.addEventListener('change', updateExport);
    only.addEventListener('change', updateExport);
    updateExport();
    const upload = el('input', { type: 'file', accept: '.xlf,.xliff,.po,.json,.yaml,.yml' });
    const importResult = el('div', { class: 'import-result', role: 'status', 'aria-label': 'Import result' });
    async function importFile() {
        const file = upload.files[0];
        if (!file) return;
        const name = file.name.toLowerCase().replace(/[^a-z0-9_.-]+/g, '-').replace(/^[.-]+/, '') || 'upload.xlf';
        const answer = await request('POST', `${apiPath('sites', site, 'l10n', locale, 'import')}?name=${encodeURIComponent(name)}`, { bytes: file, expect: [422] });
        clear(importResult);
        if (answer.status === 422) {
            importResult.append(el('p', { class: 'error', text: 'Not imported:' }),
                el('ul', {}, (answer.body.diagnostics || []).map((d) => el('li', { text: `${d.file}:${d.line}:${d.column}: ${d.severity}: ${d.message}` }))));
            return;
        }
        importResult.append(el('p', { text: `Imported ${answer.body.entries} translation(s) of ${answer.body.page} into ${answer.body.destination}` }));
        status.waitFor(answer.body.save_id, performance.now());
    }

    clear(view);
    view.append(
        el('nav', { class: 'crumbs', 'aria-label': 'Breadcrumbs' }, el('a', { href: '#/', text: 'Sites' }), ' / ',
            el('a', { href: `#/sites/${site}/l10n`, text: site }), ' / ', el('span', { text: `${pageID} (${locale})` })),
        siteNav(site, 'Translations'),
        el('h2', { text: `${pageID} in ${locale}` }),
        el('p', { class: 'muted', text: `File: ${page.file ?? `none yet (a save writes l10n/${locale}/${pageID}.yaml)`} · format ${page.format} · fallback chain ${page.chain.join(' → ')}` }),
        el('div', { class: 'filters' }, labelled('Show', filter),
            canTranslate ? el('button', { type: 'button', class: 'primary', text: 'Save translations', onclick: () => save() }) : null),
        status.element,
        el('div', { class: 'translate' }, list, previewBox),
        el('section', { class: 'exchange', 'aria-label': 'Export and import' }, el('h3', { text: 'Export and import' }),
            el('div', { class: 'filters' }, labelled('Format', format), labelled('Strings', only), exportLink),
            canTranslate ? el('div', { class: 'filters' }, labelled('Translated file', upload), el('button', { type: 'button', text: 'Import', onclick: () => importFile() })) : null,
            importResult));
    applyFilter();
    refreshPreview();
    return {
        close() { preview.close(); status.stop?.(); },
        canLeave: () => edits.size === 0,
    };
}
