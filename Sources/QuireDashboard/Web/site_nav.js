// A site's views: its pages (editors), its translations (translators) and its versions and
// history (ops), linked above each view of the site.
import { el } from './dom.js';

export function siteNav(site, active) {
    const link = (name, href) => el('a', { href, text: name, 'aria-current': name === active ? 'page' : null });
    return el('nav', { class: 'site-nav', 'aria-label': `Views of ${site}` },
        link('Pages', `#/sites/${site}`), ' · ', link('Translations', `#/sites/${site}/l10n`), ' · ', link('Versions', `#/sites/${site}/ops`));
}
