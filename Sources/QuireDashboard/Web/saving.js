// Saving and deleting a page: the base it was opened at goes with every write, so a stale copy
// (another tab, a text editor, a git pull) is refused and both texts are shown; a form save of
// a file with comments asks before dropping them.
import { request, apiPath } from './request.js';
import { ask, shownText } from './dialog.js';
import { showNotice } from './messages.js';
import { el } from './dom.js';

/**
 * `body`: `{text}` (written byte for byte) or `{document}` (written in the file's format).
 * Resolves to `{base, save_id, answeredAt}`, or null when nothing was written.
 */
export async function savePage(state, body) {
    const url = apiPath('sites', state.site, 'pages', state.pageID);
    const put = (extra) => request('PUT', url, { json: { base: state.base, ...body, ...extra }, expect: [409] });
    let answer = await put(body.document !== undefined ? { drop_comments: false } : {});
    if (answer.status === 409 && answer.body?.comments) {
        const drop = await ask({
            title: 'Save without the comments?',
            message: 'This file has comments. A save from the form writes the page anew and drops them; a save from the text mode keeps the file as you typed it.',
            confirm: 'Save without comments',
            cancel: 'Do not save',
        });
        if (!drop) {
            showNotice('Not saved: the comments are kept. Switch to Text to save with them.');
            return null;
        }
        answer = await put({ drop_comments: true });
    }
    if (answer.status === 409) {
        await showConflict(state, answer.body || {});
        return null;
    }
    const answeredAt = performance.now();
    state.hasComments = state.hasComments && body.document === undefined;
    return { ...answer.body, answeredAt };
}

async function showConflict(state, conflict) {
    const reload = await ask({
        title: 'Not saved: the file changed on disk',
        message: `pages/${state.site}/${state.path} changed since you opened it (another tab, a text editor or a git pull). Nothing was overwritten. Compare the two texts below; reload to start again from the disk's text, or keep your draft and carry your changes over.`,
        confirm: 'Reload from disk',
        cancel: 'Keep my draft',
        details: [el('div', { class: 'conflict-texts' }, shownText('Text on disk', conflict.disk_text ?? ''), shownText('Your text', conflict.your_text ?? ''))],
    });
    if (!reload) return;
    state.dirty = false;
    window.dispatchEvent(new HashChangeEvent('hashchange'));
}

export async function deletePage(state) {
    const sure = await ask({
        title: `Delete ${state.pageID}?`,
        message: `The file leaves pages/${state.site}/ and apps stop getting the page once the watcher publishes. The published history keeps it, so it can be rolled back.`,
        confirm: 'Delete page',
    });
    if (!sure) return false;
    const url = `${apiPath('sites', state.site, 'pages', state.pageID)}?base=${encodeURIComponent(state.base)}`;
    const answer = await request('DELETE', url, { expect: [409] });
    if (answer.status === 409) {
        await showConflict(state, answer.body || {});
        return false;
    }
    showNotice(`Deleted ${state.pageID}.`);
    return true;
}
