// The sites the watcher publishes, with their current version and health.
import { el, clear } from './dom.js';
import { request } from './request.js';

export async function openSites(view) {
    const sites = (await request('GET', '/api/sites')).body || [];
    clear(view);
    view.append(el('h2', { text: 'Sites' }), el('table', { class: 'sites', 'aria-label': 'Sites' },
        el('thead', {}, el('tr', {}, ['site', 'live version', 'pages', 'errors', 'warnings', 'locales'].map((h) => el('th', { scope: 'col', text: h })))),
        el('tbody', {}, sites.map((site) => el('tr', {},
            el('td', {}, el('a', { href: `#/sites/${site.name}`, text: site.name })),
            el('td', { text: site.current ?? '—' }),
            el('td', { class: 'number', text: String(site.pages ?? 0) }),
            el('td', { class: site.errors ? 'number error' : 'number', text: String(site.errors ?? 0) }),
            el('td', { class: site.warnings ? 'number warning' : 'number', text: String(site.warnings ?? 0) }),
            el('td', { text: (site.locales || []).join(', ') }))))));
    return { close() {}, canLeave: () => true };
}
