// One control per field kind of the vocabulary, bound to `owner[spec.name]`: every edit writes
// the model and calls `context.changed()`. Keys the form does not know stay in the model as
// they are. Each field's wrapper carries its key path (`sections[2].title`), where diagnostics
// are shown (diagnostics.js).
import { el, labelled, uniqueId, keyPath } from './dom.js';

/** `context`: `{schema, changed(), rerender()}`. */
export function fieldControl(spec, owner, path, context) {
    const value = owner[spec.name];
    const kind = knownKinds.has(spec.kind) ? spec.kind : typeof (value ?? '') === 'string' ? 'text' : 'raw';
    const set = (next) => {
        if (next === undefined || (next === '' && !spec.required)) delete owner[spec.name];
        else owner[spec.name] = next;
        context.changed();
    };
    let control;
    const hints = [spec.summary];
    switch (value !== undefined && !fits(kind, value) ? 'raw' : kind) {
        case 'text':
        case 'id':
            control = input('text', value ?? '', (v) => set(v));
            break;
        case 'page':
            control = select(['', ...context.schema.pages], value ?? '', (v) => set(v || undefined), '(none)');
            break;
        case 'refresh':
            return refreshControl(spec, owner, path, context);
        case 'markdown':
            control = el('textarea', { rows: 5, value: value ?? '', oninput: (e) => set(e.target.value) });
            break;
        case 'url':
            control = input('text', value ?? '', (v) => set(v), { inputmode: 'url', list: routeList(context) });
            break;
        case 'image':
            return imagePicker(spec, owner, path, context, set);
        case 'id_list':
            control = input('text', (value ?? []).join(', '), (v) => set(v.split(/[\s,]+/).filter(Boolean)));
            hints.push('ids, separated by commas');
            break;
        case 'enum':
            control = select(['', ...(spec.values || [])], value ?? '', (v) => set(v || undefined), spec.required && value ? null : '(none)');
            break;
        case 'integer':
        case 'number':
            control = input('number', value ?? '', (v) => set(v === '' ? undefined : Number(v)));
            if (kind === 'integer') control.step = '1';
            break;
        case 'boolean':
            control = el('input', { type: 'checkbox', checked: value === true, onchange: (e) => set(e.target.checked ? true : undefined) });
            break;
        case 'date':
            control = dateInput(value, set);
            break;
        case 'items':
            return itemList(spec, owner, path, context);
        default:
            control = rawInput(value, set);
            hints.push('as JSON');
    }
    if (spec.required) {
        control.required = true;
        control.setAttribute('aria-required', 'true');
    }
    const field = labelled(spec.name, control, { 'data-key-path': path, class: `field kind-${kind}${spec.required ? ' required' : ''}` });
    const hintIDs = [];
    for (const text of hints.filter(Boolean)) {
        const id = uniqueId('hint');
        field.append(el('p', { class: 'hint', id, text }));
        hintIDs.push(id);
    }
    if (hintIDs.length) control.setAttribute('aria-describedby', hintIDs.join(' '));
    return field;
}

const knownKinds = new Set(['text', 'id', 'page', 'markdown', 'url', 'image', 'id_list', 'enum', 'integer', 'number', 'boolean', 'date', 'items', 'refresh']);

/** Whether a value from the file has the shape the control edits; otherwise it is edited raw. */
function fits(kind, value) {
    switch (kind) {
        case 'text': case 'id': case 'page': case 'markdown': case 'url': case 'image': case 'enum': return typeof value === 'string';
        case 'refresh': return value !== null && typeof value === 'object' && !Array.isArray(value);
        case 'date': return typeof value === 'string' && !Number.isNaN(Date.parse(value));
        case 'id_list': return Array.isArray(value) && value.every((v) => typeof v === 'string');
        case 'integer': case 'number': return typeof value === 'number';
        case 'boolean': return typeof value === 'boolean';
        case 'items': return Array.isArray(value) && value.every((v) => v && typeof v === 'object' && !Array.isArray(v));
        default: return false;
    }
}

function input(type, value, onValue, props = {}) {
    return el('input', { type, value: String(value), spellcheck: type === 'text' ? 'true' : null, ...props, oninput: (e) => onValue(e.target.value) });
}

export function select(values, current, onValue, emptyLabel = null) {
    const options = values.filter((v, i) => v !== '' || (i === 0 && emptyLabel !== null));
    if (current && !options.includes(current)) options.push(current);
    const control = el('select', { onchange: (e) => onValue(e.target.value) },
        options.map((v) => el('option', { value: v, text: v === '' ? emptyLabel : v })));
    control.value = current;
    return control;
}

function routeList(context) {
    const id = 'app-routes';
    if (!document.getElementById(id)) {
        document.body.append(el('datalist', { id }, context.schema.appRoutes.map((route) => el('option', { value: route }))));
    }
    return id;
}

/** Schedule times: the browser's date and time input, in local time, stored as UTC ISO 8601. */
function dateInput(value, set) {
    const pad = (n) => String(n).padStart(2, '0');
    let shown = '';
    if (typeof value === 'string') {
        const date = new Date(value);
        shown = `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
    }
    return el('input', {
        type: 'datetime-local', value: shown,
        onchange: (e) => set(e.target.value ? new Date(e.target.value).toISOString().replace(/\.\d{3}Z$/, 'Z') : undefined),
    });
}

/** A value of a shape the form has no control for: its JSON, applied once it parses. */
function rawInput(value, set) {
    const area = el('textarea', { class: 'raw', rows: 3, spellcheck: 'false', value: value === undefined ? '' : JSON.stringify(value, null, 2) });
    area.addEventListener('input', () => {
        if (area.value.trim() === '') return set(undefined);
        try {
            set(JSON.parse(area.value));
            area.setCustomValidity('');
        } catch {
            area.setCustomValidity('not valid JSON');
        }
    });
    return area;
}

/** An image: one of the site's assets (uploads add to the list), or none. */
function imagePicker(spec, owner, path, context, set) {
    const value = owner[spec.name] ?? '';
    const control = select(['', ...context.schema.assets], value, (v) => set(v || undefined), '(no image)');
    if (spec.required) control.setAttribute('aria-required', 'true');
    return labelled(spec.name, control, { 'data-key-path': path, class: 'field kind-image' });
}

/** A list of items, each a group of its fields, with add, remove and move. */
function itemList(spec, owner, path, context) {
    const items = Array.isArray(owner[spec.name]) ? owner[spec.name] : [];
    const box = el('fieldset', { class: 'items', 'data-key-path': path }, el('legend', { text: spec.name }));
    const structural = (change) => () => {
        change();
        if (items.length === 0 && !spec.required) delete owner[spec.name];
        else owner[spec.name] = items;
        context.changed();
        context.rerender();
    };
    items.forEach((item, index) => {
        const name = `${spec.name} ${index + 1}`;
        const group = el('div', { class: 'item', role: 'group', 'aria-label': name, 'data-key-path': keyPath(path, index) });
        group.append(el('p', { class: 'item-title', text: name }));
        for (const sub of spec.fields || []) group.append(fieldControl(sub, item, keyPath(keyPath(path, index), sub.name), context));
        group.append(el('div', { class: 'buttons' },
            el('button', { type: 'button', text: 'Move up', 'aria-label': `Move ${name} up`, disabled: index === 0,
                onclick: structural(() => items.splice(index - 1, 0, ...items.splice(index, 1))) }),
            el('button', { type: 'button', text: 'Move down', 'aria-label': `Move ${name} down`, disabled: index === items.length - 1,
                onclick: structural(() => items.splice(index + 1, 0, ...items.splice(index, 1))) }),
            el('button', { type: 'button', text: 'Remove', 'aria-label': `Remove ${name}`, onclick: structural(() => items.splice(index, 1)) }),
        ));
        box.append(group);
    });
    box.append(el('button', { type: 'button', text: `Add to ${spec.name}`, onclick: structural(() => items.push({})) }));
    return box;
}

/** `refresh`: `{interval, on_appear}`, either or both. */
function refreshControl(spec, owner, path, context) {
    const value = owner[spec.name] || {};
    const update = (key, next) => {
        const refresh = { ...(owner[spec.name] || {}) };
        if (next === undefined) delete refresh[key]; else refresh[key] = next;
        if (Object.keys(refresh).length) owner[spec.name] = refresh; else delete owner[spec.name];
        context.changed();
    };
    const interval = input('number', value.interval ?? '', (v) => update('interval', v === '' ? undefined : Number(v)), { min: '1', step: '1' });
    const onAppear = el('input', { type: 'checkbox', checked: value.on_appear === true, onchange: (e) => update('on_appear', e.target.checked ? true : undefined) });
    return el('fieldset', { class: 'refresh', 'data-key-path': path }, el('legend', { text: spec.name }),
        labelled('interval (seconds)', interval, { 'data-key-path': keyPath(path, 'interval') }),
        el('label', { class: 'check', 'data-key-path': keyPath(path, 'on_appear') }, onAppear, ' on appear'));
}
