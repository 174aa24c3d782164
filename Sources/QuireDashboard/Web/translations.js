// Coverage at a glance for localization teams: per locale the figures `quire l10n status`
// prints, with the fallback chain; per page and locale what is missing, stale and falling
// back, each linking to the page's strings in that locale. The pages table shows the pages that
// need work unless asked for all, is searched by id, and is drawn a window at a time, so a site
// of 10,000 pages opens at once.
import { el, clear, labelled } from './dom.js';
import { request, apiPath } from './request.js';
import { siteNav } from './site_nav.js';
import { windowedTable } from './windowed_table.js';

export async function openTranslations(view, site) {
    const body = (await request('GET', apiPath('sites', site, 'l10n'))).body;
    const others = body.locales.filter((l) => !l.default);
    const work = (page, locale) => {
        const c = page.locales[locale] || {};
        return [c.missing ? `${c.missing} missing` : '', c.stale ? `${c.stale} stale` : '', c.falling_back ? `${c.falling_back} falling back` : ''].filter(Boolean);
    };
    const needsWork = new Set(body.pages.filter((page) => others.some((l) => work(page, l.locale).length)));
    const find = el('input', { type: 'search', placeholder: 'page id', oninput: () => apply() });
    const onlyWork = el('input', { type: 'checkbox', checked: true, onchange: () => apply() });
    const count = el('p', { class: 'count', role: 'status' });
    const table = el('table', { class: 'coverage-pages', 'aria-label': `Translations of ${site}'s pages` },
        el('thead', {}, el('tr', {}, el('th', { scope: 'col', text: 'page' }), others.map((l) => el('th', { scope: 'col', text: l.locale })))));
    const rows = windowedTable(table, (page) => el('tr', {},
        el('th', { scope: 'row', text: page.id }),
        others.map((l) => {
            const parts = work(page, l.locale);
            return el('td', { class: parts.length ? 'warning' : '' },
                el('a', { href: `#/sites/${site}/l10n/${l.locale}/${page.id}`, 'aria-label': `Translate ${page.id} into ${l.locale}`, text: parts.join(', ') || 'translated' }));
        })));
    clear(view);
    view.append(
        el('nav', { class: 'crumbs', 'aria-label': 'Breadcrumbs' }, el('a', { href: '#/', text: 'Sites' }), ' / ', el('span', { text: site })),
        siteNav(site, 'Translations'),
        el('h2', { text: `Translations of ${site}` }),
        el('table', { class: 'coverage', 'aria-label': `Coverage of ${site}` },
            el('thead', {}, el('tr', {}, ['locale', 'translated', 'stale', 'missing', 'total', 'percent', 'fallback chain'].map((h) => el('th', { scope: 'col', text: h })))),
            el('tbody', {}, body.locales.map((l) => el('tr', {},
                el('th', { scope: 'row', text: l.locale + (l.default ? ' (source)' : '') }),
                el('td', { class: 'number', text: String(l.translated) }),
                el('td', { class: 'number', text: String(l.stale) }),
                el('td', { class: 'number', text: String(l.missing) }),
                el('td', { class: 'number', text: String(l.total) }),
                el('td', { class: 'number', text: `${Number(l.percent).toFixed(1)}%` }),
                el('td', { text: l.chain.join(' → ') }))))),
        (body.errors || []).length ? el('ul', { class: 'errors', 'aria-label': 'Translation errors' }, body.errors.map((d) => el('li', { text: d.text }))) : null,
        el('h3', { text: 'Pages' }),
        el('div', { class: 'filters' }, labelled('Find a page', find),
            el('label', { class: 'check' }, onlyWork, ' Only pages that need work')),
        count, rows.scroller);
    apply();

    function apply() {
        const words = find.value.trim().toLowerCase();
        const shown = body.pages.filter((page) => (!onlyWork.checked || needsWork.has(page)) && (!words || page.id.toLowerCase().includes(words)));
        const total = body.pages.length.toLocaleString('en');
        count.textContent = `${shown.length.toLocaleString('en')} of ${total} pages shown; ${needsWork.size.toLocaleString('en')} need work`;
        rows.show(shown);
    }
    return { close() {}, canLeave: () => true };
}
