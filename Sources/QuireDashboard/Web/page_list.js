// A site's pages: a table filtered by text and state, drawn a window at a time, so a 10,000-page
// site lists at once. Refreshed when the watcher publishes the site.
import { el, clear, labelled } from './dom.js';
import { request, apiPath, loadSession } from './request.js';
import { onPublish } from './events.js';
import { select } from './fields.js';
import { windowedTable } from './windowed_table.js';

const states = ['live', 'draft', 'scheduled', 'expired', 'failing'];

export async function openPageList(view, site) {
    const session = await loadSession();
    const mayEdit = !Array.isArray(session.editable) || session.editable.includes(site);
    let pages = [];
    const filter = el('input', { type: 'search', placeholder: 'id or title', oninput: () => apply() });
    const state = select(['', ...states], '', () => apply(), 'any');
    const count = el('p', { class: 'count', role: 'status' });
    const table = el('table', { class: 'pages', 'aria-label': `Pages of ${site}` },
        el('thead', {}, el('tr', {}, ['id', 'title', 'state', 'version', 'errors', 'warnings', 'coverage'].map((h) => el('th', { scope: 'col', text: h })))));
    const rows = windowedTable(table, row);
    clear(view);
    view.append(
        el('nav', { class: 'crumbs', 'aria-label': 'Breadcrumbs' }, el('a', { href: '#/', text: 'Sites' }), ' / ', el('span', { text: site })),
        el('h2', { text: `Pages of ${site}` }),
        el('div', { class: 'filters' }, labelled('Filter pages', filter), labelled('State', state),
            mayEdit ? el('a', { class: 'button', href: `#/sites/${site}/new`, text: 'New page' }) : null),
        count, rows.scroller);

    async function load() {
        const answer = await request('GET', apiPath('sites', site, 'pages'));
        pages = Array.isArray(answer.body) ? answer.body : [];
        apply();
    }
    function apply() {
        const words = filter.value.trim().toLowerCase();
        const shown = pages.filter((p) => (!state.value || p.state === state.value)
            && (!words || String(p.id).toLowerCase().includes(words) || String(p.title ?? '').toLowerCase().includes(words)));
        count.textContent = `${shown.length.toLocaleString('en')} of ${pages.length.toLocaleString('en')} pages`;
        rows.show(shown);
    }
    function row(page) {
        const coverage = Object.entries(page.coverage || {}).map(([locale, part]) => `${locale} ${Math.round(part * 100)}%`).join(' · ');
        return el('tr', { class: `state-${page.state}` },
            el('td', {}, el('a', { href: `#/sites/${site}/pages/${page.id}`, text: page.id })),
            el('td', { text: page.title ?? '' }),
            el('td', {}, el('span', { class: `badge ${page.state}`, text: page.state ?? '' })),
            el('td', { text: page.version ?? '—' }),
            el('td', { class: page.errors ? 'number error' : 'number', text: String(page.errors ?? 0) }),
            el('td', { class: page.warnings ? 'number warning' : 'number', text: String(page.warnings ?? 0) }),
            el('td', { text: coverage || '—' }));
    }

    let reloading = null;
    const stop = onPublish((data) => {
        if (data.site !== site || reloading) return;
        reloading = load().finally(() => { reloading = null; });
    });
    await load();
    return { close: stop, canLeave: () => true, pages: () => pages };
}
