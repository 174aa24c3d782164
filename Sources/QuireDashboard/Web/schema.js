// A site's vocabulary for the forms (`GET /api/sites/{site}/schema`): built-in types and the
// site's vocabulary.yaml, as the validator knows them.
import { request, apiPath } from './request.js';

const cache = new Map();

export async function loadSchema(site, { fresh = false } = {}) {
    if (fresh || !cache.has(site)) {
        const schema = (await request('GET', apiPath('sites', site, 'schema'))).body || {};
        cache.set(site, normalized(schema));
    }
    return cache.get(site);
}

/** Audiences as a flat list of names, whether the service lists names or `{name}` objects. */
function normalized(schema) {
    const audiences = [];
    const collect = (value) => {
        if (typeof value === 'string') audiences.push(value);
        else if (Array.isArray(value)) value.forEach(collect);
        else if (value && typeof value === 'object') {
            if (typeof value.name === 'string') audiences.push(value.name);
            else Object.values(value).forEach(collect);
        }
    };
    collect(schema.audiences || []);
    return {
        envelope: Array.isArray(schema.envelope) ? schema.envelope : [],
        types: Array.isArray(schema.types) ? schema.types : [],
        audiences: [...new Set(audiences)],
        locales: Array.isArray(schema.locales) ? schema.locales : [],
        defaultLocale: schema.default_locale || (schema.locales || [])[0] || 'en',
        assets: Array.isArray(schema.assets) ? schema.assets : [],
        appRoutes: Array.isArray(schema.app_routes) ? schema.app_routes : [],
    };
}

export function sectionType(schema, name) {
    return schema.types.find((type) => type.name === name) || null;
}

/** The envelope's section lists: edited as section cards, not as fields. */
export const sectionLists = ['nav', 'header', 'footer'];

/** Keys a section carries whatever its type; edited by the section card itself. */
export const commonSectionKeys = ['type', 'id', 'visible_to', 'fallback', 'publish_at', 'expires_at'];

export const scheduleKeys = ['publish_at', 'expires_at'];
