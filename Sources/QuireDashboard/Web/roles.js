// What the signed-in user may do on a site, as the session says (the service enforces it on
// every request; the dashboard only hides what would be refused).
import { loadSession } from './request.js';

/** `await may('trex', 'ops')` -> true when the user has that role on the site. */
export async function may(site, role) {
    const session = await loadSession();
    const roles = session.roles?.[site];
    return Array.isArray(roles) ? roles.includes(role) : true;
}

/** Hides an editor's controls from a user who is not one of the site's editors. */
export async function hideEditing(view, site) {
    if (await may(site, 'editor')) return;
    for (const node of view.querySelectorAll('button, a.button')) {
        if (['Save', 'Delete page', 'New page', 'Upload', 'Create page', 'Add section'].includes(node.textContent.trim())) node.hidden = true;
    }
}
