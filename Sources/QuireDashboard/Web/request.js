// Every request of the dashboard goes through `request`: the session's token on every
// state-changing request (the service also checks the Origin, which the browser sets), JSON in
// and out, and failures shown in one place (messages.js). Answers the caller expects (a 409
// conflict it handles) come back instead of being shown.
import { showError } from './messages.js';

let session = null;

export class RequestError extends Error {
    constructor(message, status, body) {
        super(message);
        this.status = status;
        this.body = body;
    }
}

/** `{user, token, sites}`, fetched once. */
export async function loadSession() {
    if (!session) session = (await request('GET', '/api/session')).body;
    return session;
}

/**
 * `request('PUT', url, {json: {...}, expect: [409]})` -> `{status, body}`.
 * `bytes` sends a Blob or File as it is (uploads).
 */
export async function request(method, url, { json, bytes, expect = [], signal } = {}) {
    const headers = { Accept: 'application/json' };
    if (method !== 'GET' && method !== 'HEAD') {
        if (!session && url !== '/api/session') await loadSession();
        headers['X-Quire-Token'] = session.token;
    }
    let body;
    if (json !== undefined) {
        headers['Content-Type'] = 'application/json';
        body = JSON.stringify(json);
    } else if (bytes !== undefined) {
        headers['Content-Type'] = bytes.type || 'application/octet-stream';
        body = bytes;
    }
    let response;
    try {
        response = await fetch(url, { method, headers, body, signal, credentials: 'same-origin', cache: 'no-store' });
    } catch (error) {
        if (error.name === 'AbortError') throw error;
        const message = `${method} ${url}: the dashboard's service did not answer (${error.message}); is the watcher running?`;
        showError(message);
        throw new RequestError(message, 0, null);
    }
    const text = await response.text();
    let parsed = null;
    try {
        parsed = text ? JSON.parse(text) : null;
    } catch {
        parsed = null;
    }
    if (response.ok || expect.includes(response.status)) return { status: response.status, body: parsed };
    const reason = parsed && typeof parsed.error === 'string' ? parsed.error : text.slice(0, 200) || response.statusText;
    const message = `${method} ${url}: ${response.status}: ${reason}`;
    showError(message);
    throw new RequestError(message, response.status, parsed);
}

/** `/api/sites/trex/pages/guides/range-safety`: each segment escaped, slashes of ids kept. */
export function apiPath(...segments) {
    return '/api/' + segments.map((segment) => String(segment).split('/').map(encodeURIComponent).join('/')).join('/');
}
