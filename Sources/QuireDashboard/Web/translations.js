// Coverage at a glance for localization teams: per locale the figures `quire l10n status`
// prints, with the fallback chain; per page and locale what is missing, stale and falling
// back, each linking to the page's strings in that locale.
import { el, clear } from './dom.js';
import { request, apiPath } from './request.js';
import { siteNav } from './site_nav.js';

export async function openTranslations(view, site) {
    const body = (await request('GET', apiPath('sites', site, 'l10n'))).body;
    const others = body.locales.filter((l) => !l.default);
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
        el('h3', { text: 'Pages' }),
        el('table', { class: 'coverage-pages', 'aria-label': `Translations of ${site}'s pages` },
            el('thead', {}, el('tr', {}, el('th', { scope: 'col', text: 'page' }), others.map((l) => el('th', { scope: 'col', text: l.locale })))),
            el('tbody', {}, body.pages.map((page) => el('tr', {},
                el('th', { scope: 'row', text: page.id }),
                others.map((l) => {
                    const c = page.locales[l.locale] || {};
                    const parts = [c.missing ? `${c.missing} missing` : '', c.stale ? `${c.stale} stale` : '', c.falling_back ? `${c.falling_back} falling back` : ''].filter(Boolean);
                    return el('td', { class: parts.length ? 'warning' : '' },
                        el('a', { href: `#/sites/${site}/l10n/${l.locale}/${page.id}`, 'aria-label': `Translate ${page.id} into ${l.locale}`, text: parts.join(', ') || 'translated' }));
                }))))),
        (body.errors || []).length ? el('ul', { class: 'errors', 'aria-label': 'Translation errors' }, body.errors.map((d) => el('li', { text: d.text }))) : null);
    return { close() {}, canLeave: () => true };
}
