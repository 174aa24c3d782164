// The site's images (`assets/`): listing and uploads. The service decides the type from the
// bytes and refuses what is not an image; its message is shown like every other.
import { request, apiPath } from './request.js';

export async function listAssets(site) {
    const answer = await request('GET', apiPath('sites', site, 'assets'));
    return Array.isArray(answer.body) ? answer.body.map((asset) => asset.path) : [];
}

/** Uploads `file` under its own name; resolves to its site path (`/assets/x.png`). */
export async function uploadAsset(site, file) {
    const url = `${apiPath('sites', site, 'assets')}?name=${encodeURIComponent(file.name)}`;
    const answer = await request('POST', url, { bytes: file });
    return answer.body.path;
}
