// The dashboard's entry: the session, then one view at a time, chosen by the address's hash:
//   #/                          the sites
//   #/sites/<site>              its pages
//   #/sites/<site>/new          a new page
//   #/sites/<site>/pages/<id>   a page's editor
// No page text ever becomes markup, so the document's policy requires Trusted Types for every
// script sink with no policy defined: an accidental innerHTML fails instead of running.
import { loadSession } from './request.js';
import { openSites } from './sites.js';
import { openPageList } from './page_list.js';
import { openNewPage } from './new_page.js';
import { openEditor } from './editor.js';
import { openOps } from './ops.js';
import { openTranslations } from './translations.js';
import { openTranslate } from './translate.js';
import { siteNav } from './site_nav.js';
import { hideEditing } from './roles.js';
import { ask } from './dialog.js';
import { clearError, ageNotice } from './messages.js';

const view = document.getElementById('view');
const loading = document.getElementById('loading');
let opening = 0;
let current = null;
let shownHash = null;

async function route() {
    if (location.hash === shownHash) return;
    if (current && !current.canLeave()) {
        const leave = await ask({ title: 'Leave without saving?', message: 'This page has changes that are not saved.', confirm: 'Leave', cancel: 'Stay' });
        if (!leave) {
            history.replaceState(null, '', shownHash || '#/');
            return;
        }
    }
    current?.close();
    current = null;
    shownHash = location.hash;
    clearError();
    ageNotice();
    const parts = location.hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
    // The last view stays until the next is drawn; a view slow to load (a large site's
    // translations) says so rather than look like a click that did nothing.
    opening += 1;
    view.setAttribute('aria-busy', 'true');
    const slow = setTimeout(() => { loading.hidden = false; }, 300);
    try {
        if (parts[0] === 'sites' && parts[1] && parts[2] === 'ops') current = await openOps(view, parts[1]);
        else if (parts[0] === 'sites' && parts[1] && parts[2] === 'l10n' && parts.length > 4) current = await openTranslate(view, parts[1], parts[3], parts.slice(4).join('/'));
        else if (parts[0] === 'sites' && parts[1] && parts[2] === 'l10n') current = await openTranslations(view, parts[1]);
        else if (parts[0] === 'sites' && parts[1] && parts[2] === 'pages' && parts.length > 3) current = await openEditor(view, parts[1], parts.slice(3).join('/'));
        else if (parts[0] === 'sites' && parts[1] && parts[2] === 'new') current = await openNewPage(view, parts[1]);
        else if (parts[0] === 'sites' && parts[1]) {
            current = await openPageList(view, parts[1]);
            view.querySelector('nav.crumbs')?.after(siteNav(parts[1], 'Pages'));
        }
        else current = await openSites(view);
        if (parts[0] === 'sites' && parts[1] && parts[2] !== 'l10n' && parts[2] !== 'ops') await hideEditing(view, parts[1]);
    } catch (error) {
        // request() has shown what failed.
        console.error(error);
    } finally {
        clearTimeout(slow);
        opening -= 1;
        if (!opening) {
            loading.hidden = true;
            view.removeAttribute('aria-busy');
        }
    }
    document.title = `${parts.length > 3 ? parts.slice(3).join('/') : parts[1] || 'Sites'} · Quire dashboard`;
}

window.addEventListener('hashchange', () => {
    if (location.hash === shownHash) shownHash = null; // a reload asked for by a view
    route();
});
window.addEventListener('beforeunload', (event) => {
    if (current && !current.canLeave()) event.preventDefault();
});

const session = await loadSession();
document.getElementById('user').textContent = session.user ? `signed in as ${session.user}` : 'local editor';
route();
