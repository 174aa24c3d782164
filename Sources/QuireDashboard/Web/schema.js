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
        sectionFields: Array.isArray(schema.section_fields) && schema.section_fields.length ? schema.section_fields : defaultSectionFields,
        pages: Array.isArray(schema.pages) ? schema.pages : [],
        assets: Array.isArray(schema.assets) ? schema.assets : [],
        appRoutes: Array.isArray(schema.app_routes) ? schema.app_routes : [],
    };
}

export function sectionType(schema, name) {
    return schema.types.find((type) => type.name === name) || null;
}

/** Keys every section carries whatever its type, when the service's schema does not name them. */
const defaultSectionFields = [
    { name: 'id', kind: 'id' },
    { name: 'visible_to', kind: 'audiences' },
    { name: 'fallback', kind: 'section' },
    { name: 'publish_at', kind: 'date' },
    { name: 'expires_at', kind: 'date' },
];
