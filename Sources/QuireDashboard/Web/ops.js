// Ops on a site: its versions (who caused each, what changed, current and pinned, the replicas),
// the diff of two versions with one page's published JSON side by side, roll back (with a
// reason), unpin, verify, gc, and the history filtered by kind and user. Every action asks first
// and shows what the service did; the service runs the same store calls as `quire rollback` & co.
import { el, clear, labelled } from './dom.js';
import { request, apiPath } from './request.js';
import { ask } from './dialog.js';
import { showNotice, showError } from './messages.js';
import { siteNav } from './site_nav.js';
import { may } from './roles.js';

export async function openOps(view, site) {
    const canOperate = await may(site, 'ops');
    const versionsBox = el('section', { 'aria-label': 'Versions' });
    const diffBox = el('section', { 'aria-label': 'Diff' });
    const gcBox = el('section', { 'aria-label': 'Collect old versions' });
    const historyBox = el('section', { 'aria-label': 'History' });
    const result = el('p', { class: 'ops-result', role: 'status' });
    clear(view);
    view.append(
        el('nav', { class: 'crumbs', 'aria-label': 'Breadcrumbs' }, el('a', { href: '#/', text: 'Sites' }), ' / ', el('span', { text: site })),
        siteNav(site, 'Versions'), el('h2', { text: `Versions of ${site}` }), result, versionsBox, diffBox, gcBox, historyBox);

    let versions = [];

    function said(text) {
        result.textContent = text;
        showNotice(text);
    }

    async function act(action, json) {
        const answer = await request('POST', apiPath('sites', site, 'ops', action), { json });
        return answer.body;
    }

    async function rollback(id) {
        const reason = el('textarea', { rows: 3, required: true });
        const ok = await ask({
            title: `Roll back to ${id}?`, message: `Current moves to ${id} and stays pinned there until unpinned; new saves still publish new versions.`,
            confirm: 'Roll back', details: [labelled('Reason (required, kept in the history)', reason)],
        });
        if (!ok) return;
        if (!reason.value.trim()) {
            showError('A rollback needs a reason: nothing was rolled back.');
            return;
        }
        const body = await act('rollback', { version: id, reason: reason.value.trim() });
        said(`Rolled back: current is ${body.current} (was ${body.was ?? 'none'}), pinned.${replicaText(body.replicas)}`);
        await loadVersions();
        await loadHistory();
    }

    async function unpin() {
        const reason = el('input', { type: 'text' });
        const ok = await ask({ title: 'Unpin?', message: 'The newest version goes live again.', confirm: 'Unpin', details: [labelled('Reason', reason)] });
        if (!ok) return;
        const body = await act('unpin', { reason: reason.value.trim() });
        said(`Unpinned: current is ${body.current ?? 'none'}.${replicaText(body.replicas)}`);
        await loadVersions();
        await loadHistory();
    }

    async function verify(id) {
        const ok = await ask({ title: `Verify ${id}?`, message: 'Every file the version reaches is hashed again and compared with its manifest.', confirm: 'Verify' });
        if (!ok) return;
        const body = await act('verify', { version: id });
        said(body.verified ? `${body.version}: verified, no problems.` : `${body.version}: ${body.problems.length} problem(s): ${body.problems.slice(0, 5).join('; ')}`);
    }

    async function loadVersions() {
        const body = (await request('GET', apiPath('sites', site, 'ops', 'versions'))).body;
        versions = body.versions || [];
        clear(versionsBox);
        const rows = [...versions].reverse().map((v) => el('tr', { dataset: { version: v.id } },
            el('th', { scope: 'row', text: v.id }),
            el('td', { text: v.built_at }),
            el('td', { text: v.user ?? '—' }),
            el('td', { class: 'number', text: v.changes ? `+${v.changes.added.length} ~${v.changes.changed.length} −${v.changes.removed.length}` : '—' }),
            el('td', { text: [v.current ? 'current' : '', v.pinned ? 'pinned' : ''].filter(Boolean).join(', ') }),
            el('td', {},
                canOperate && !v.current ? el('button', { type: 'button', text: 'Roll back', 'aria-label': `Roll back to ${v.id}`, onclick: () => rollback(v.id) }) : null,
                canOperate ? el('button', { type: 'button', text: 'Verify', 'aria-label': `Verify ${v.id}`, onclick: () => verify(v.id) }) : null)));
        versionsBox.append(
            body.pin ? el('p', { class: 'pin' }, `Pinned at ${body.pin.version}: ${body.pin.reason || 'no reason given'} (${body.pin.pinned_at}) `,
                canOperate ? el('button', { type: 'button', text: 'Unpin', onclick: () => unpin() }) : null) : null,
            el('table', { class: 'versions', 'aria-label': `Versions of ${site}` },
                el('thead', {}, el('tr', {}, ['version', 'built', 'caused by', 'pages +added ~changed −removed', 'state', ''].map((h) => el('th', { scope: 'col', text: h })))),
                el('tbody', {}, rows)),
            (body.replicas || []).length
                ? el('ul', { class: 'replicas', 'aria-label': 'Replicas' }, body.replicas.map((r) => el('li', { text: `${r.destination}: ${r.version ?? 'none'} (${r.state})` })))
                : el('p', { class: 'muted', text: 'No replicas.' }));
        drawDiffControls();
    }

    function drawDiffControls() {
        clear(diffBox);
        const ids = versions.map((v) => v.id);
        const from = el('select', {}, ids.map((id) => el('option', { value: id, text: id })));
        const to = el('select', {}, ids.map((id) => el('option', { value: id, text: id })));
        if (ids.length > 1) from.value = ids[ids.length - 2];
        to.value = ids[ids.length - 1] ?? '';
        const list = el('div', { class: 'diff-list' });
        const sides = el('div', { class: 'side-by-side' });
        async function compare() {
            const body = (await request('GET', `${apiPath('sites', site, 'ops', 'diff')}?from=${encodeURIComponent(from.value)}&to=${encodeURIComponent(to.value)}`)).body;
            clear(list);
            clear(sides);
            const item = (mark, path) => el('li', {}, el('button', { type: 'button', class: 'link', text: `${mark} ${path}`, onclick: () => showSides(path) }));
            const items = [...body.added.map((p) => item('+', p)), ...body.changed.map((p) => item('~', p)), ...body.removed.map((p) => item('−', p))];
            list.append(el('p', { role: 'status', text: `${body.added.length} added, ${body.changed.length} changed, ${body.removed.length} removed` }),
                el('ul', { 'aria-label': 'Changed files' }, items));
        }
        async function showSides(path) {
            const get = async (version) => (await request('GET', `${apiPath('sites', site, 'ops', 'published')}?version=${encodeURIComponent(version)}&path=${encodeURIComponent(path)}`)).body.text;
            const [old, now] = await Promise.all([get(from.value), get(to.value)]);
            clear(sides);
            sides.append(
                el('figure', {}, el('figcaption', { text: `${path} in ${from.value}` }), el('pre', { 'aria-label': `${path} in ${from.value}`, text: old ?? '(not in this version)' })),
                el('figure', {}, el('figcaption', { text: `${path} in ${to.value}` }), el('pre', { 'aria-label': `${path} in ${to.value}`, text: now ?? '(not in this version)' })));
        }
        diffBox.append(el('h3', { text: 'Compare versions' }),
            el('div', { class: 'filters' }, labelled('From', from), labelled('To', to), el('button', { type: 'button', text: 'Compare', onclick: () => compare() })),
            list, sides);
    }

    function drawGC() {
        clear(gcBox);
        if (!canOperate) return;
        const keep = el('input', { type: 'number', min: '1', value: '20' });
        async function collect() {
            const count = Number(keep.value);
            if (!(count >= 1)) {
                showError('Keep at least 1 version.');
                return;
            }
            const ok = await ask({ title: 'Collect old versions?', message: `Versions beyond the newest ${count} are removed (current and a pinned one stay).`, confirm: 'Collect' });
            if (!ok) return;
            const body = await act('gc', { keep: count });
            said(`Removed ${body.count} version(s)${body.count ? ` (${body.removed_versions.join(', ')})` : ''} and ${body.removed_trees} unreachable tree(s).`);
            await loadVersions();
            await loadHistory();
        }
        gcBox.append(el('h3', { text: 'Collect old versions' }),
            el('div', { class: 'filters' }, labelled('Keep newest', keep), el('button', { type: 'button', text: 'Collect', onclick: () => collect() })));
    }

    const kind = el('select', { onchange: () => loadHistory() });
    const user = el('select', { onchange: () => loadHistory() });
    const historyTable = el('tbody');
    historyBox.append(el('h3', { text: 'History' }),
        el('div', { class: 'filters' }, labelled('Kind', kind), labelled('User', user)),
        el('table', { class: 'history', 'aria-label': `History of ${site}` },
            el('thead', {}, el('tr', {}, ['when', 'kind', 'from', 'to', 'user', 'reason'].map((h) => el('th', { scope: 'col', text: h })))),
            historyTable));

    async function loadHistory() {
        const query = `?kind=${encodeURIComponent(kind.value)}&user=${encodeURIComponent(user.value)}`;
        const body = (await request('GET', apiPath('sites', site, 'ops', 'history') + query)).body;
        fillSelect(kind, body.kinds);
        fillSelect(user, body.users);
        clear(historyTable);
        historyTable.append(...body.entries.map((e) => el('tr', {},
            el('td', { text: e.when }), el('td', { text: e.action }), el('td', { text: e.from ?? '—' }), el('td', { text: e.to ?? '—' }),
            el('td', { text: e.user }), el('td', { text: e.reason }))));
    }

    await loadVersions();
    drawGC();
    await loadHistory();
    return { close() {}, canLeave: () => true };
}

function fillSelect(select, values) {
    const chosen = select.value;
    clear(select);
    select.append(el('option', { value: '', text: 'any' }), ...values.map((v) => el('option', { value: v, text: v })));
    select.value = values.includes(chosen) ? chosen : '';
}

function replicaText(replicas) {
    if (!replicas || !replicas.length) return '';
    return ' Replicas: ' + replicas.map((r) => `${r.destination ?? '?'} ${r.state}${r.message ? ` (${r.message})` : ''}`).join('; ') + '.';
}
