// A list of sections (`sections`, or the envelope's `nav`, `header`, `footer`) as cards: each
// with its type's fields and the keys every section has (id, visible_to, schedule, fallback),
// and buttons to move, duplicate and remove it; a type picker adds one. A section of a type the
// vocabulary does not know is edited as its JSON and kept as it is.
import { el, labelled, keyPath, deepCopy } from './dom.js';
import { fieldControl, select } from './fields.js';
import { sectionType } from './schema.js';

const listTitles = { sections: 'Sections', nav: 'Navigation', header: 'Header', footer: 'Footer' };

export function sectionList(listName, doc, context) {
    const sections = Array.isArray(doc[listName]) ? doc[listName] : [];
    const noun = listName === 'sections' ? 'section' : `${listName} section`;
    const box = el('fieldset', { class: `section-list list-${listName}`, 'data-key-path': listName },
        el('legend', { text: listTitles[listName] || listName }));
    const structural = (change) => () => {
        change();
        if (sections.length === 0 && listName !== 'sections') delete doc[listName];
        else doc[listName] = sections;
        context.changed();
        context.rerender();
    };
    sections.forEach((section, index) => {
        const name = `${noun} ${index + 1}`;
        const path = keyPath(listName, index);
        const type = section && typeof section.type === 'string' ? section.type : '';
        const card = el('section', { class: 'card', 'aria-label': `${capitalized(name)}: ${type || 'no type'}`, 'data-key-path': path });
        card.append(el('header', { class: 'card-header' },
            el('h3', {}, `${index + 1}. `, el('code', { text: type || '(no type)' }), section?.id ? ` · ${section.id}` : ''),
            el('div', { class: 'buttons' },
                el('button', { type: 'button', text: 'Move up', 'aria-label': `Move ${name} up`, disabled: index === 0,
                    onclick: structural(() => sections.splice(index - 1, 0, ...sections.splice(index, 1))) }),
                el('button', { type: 'button', text: 'Move down', 'aria-label': `Move ${name} down`, disabled: index === sections.length - 1,
                    onclick: structural(() => sections.splice(index + 1, 0, ...sections.splice(index, 1))) }),
                el('button', { type: 'button', text: 'Duplicate', 'aria-label': `Duplicate ${name}`,
                    onclick: structural(() => sections.splice(index + 1, 0, duplicate(section, sections))) }),
                el('button', { type: 'button', class: 'danger', text: 'Remove', 'aria-label': `Remove ${name}`,
                    onclick: structural(() => sections.splice(index, 1)) }),
            )));
        const spec = sectionType(context.schema, type);
        if (spec && section && typeof section === 'object' && !Array.isArray(section)) {
            card.append(...sectionFields(section, spec, path, context, { isFallback: false }));
        } else {
            card.append(rawSection(sections, index, path, context));
        }
        box.append(card);
    });
    const picker = select(context.schema.types.map((t) => t.name), context.schema.types[0]?.name ?? '', () => {});
    box.append(el('div', { class: 'add-section' },
        labelled(`New ${noun} type`, picker),
        el('button', { type: 'button', text: `Add ${noun}`,
            onclick: structural(() => sections.push({ type: picker.value, id: freshID(picker.value, sections) })) })));
    return box;
}

/** The fields of a section of a known type, then the keys every section has. */
function sectionFields(section, spec, path, context, { isFallback }) {
    const common = context.schema.sectionFields;
    const nodes = common.filter((f) => f.kind === 'id').map((f) => fieldControl(f, section, keyPath(path, f.name), context));
    for (const field of spec.fields || []) nodes.push(fieldControl(field, section, keyPath(path, field.name), context));
    // A fallback takes its parent's audience and schedule, and has no fallback of its own.
    if (isFallback) return nodes;
    for (const field of common) {
        if (field.kind === 'audiences') {
            if (context.schema.audiences.length || Array.isArray(section[field.name])) nodes.push(audiencePicker(section, field.name, path, context));
        } else if (field.kind === 'section') {
            nodes.push(fallbackEditor(section, field.name, path, context));
        } else if (field.kind !== 'id') {
            nodes.push(fieldControl(field, section, keyPath(path, field.name), context));
        }
    }
    return nodes;
}

/** `visible_to`: one checkbox per audience of the site; none checked means everyone. */
function audiencePicker(section, key, path, context) {
    const chosen = new Set(Array.isArray(section[key]) ? section[key] : []);
    const names = [...new Set([...context.schema.audiences, ...chosen])];
    const box = el('fieldset', { class: 'audiences', 'data-key-path': keyPath(path, key) }, el('legend', { text: key.replace(/_/g, ' ') }));
    for (const name of names) {
        const checkbox = el('input', { type: 'checkbox', checked: chosen.has(name), onchange: (e) => {
            if (e.target.checked) chosen.add(name); else chosen.delete(name);
            if (chosen.size) section[key] = names.filter((n) => chosen.has(n)); else delete section[key];
            context.changed();
        } });
        box.append(el('label', { class: 'check' }, checkbox, ` ${name}`));
    }
    box.append(el('p', { class: 'hint', text: 'none checked: everyone' }));
    return box;
}

/** `fallback`: the section older apps get instead; it takes its parent's audience and schedule. */
function fallbackEditor(section, key, path, context) {
    const fallbackPath = keyPath(path, key);
    const box = el('fieldset', { class: 'fallback', 'data-key-path': fallbackPath }, el('legend', { text: key }));
    const redraw = () => { context.changed(); context.rerender(); };
    const fallback = section[key];
    if (fallback && typeof fallback === 'object' && !Array.isArray(fallback)) {
        const spec = sectionType(context.schema, fallback.type);
        box.append(el('p', {}, 'type ', el('code', { text: String(fallback.type ?? '(none)') })));
        if (spec) box.append(...sectionFields(fallback, spec, fallbackPath, context, { isFallback: true }));
        box.append(el('button', { type: 'button', text: 'Remove fallback', onclick: () => { delete section[key]; redraw(); } }));
    } else {
        const picker = select(context.schema.types.map((t) => t.name), 'markdown_block', () => {});
        box.append(labelled('Fallback type', picker),
            el('button', { type: 'button', text: 'Add fallback', onclick: () => { section[key] = { type: picker.value }; redraw(); } }));
    }
    return box;
}

/** A section the vocabulary does not know: its JSON, applied when it parses, kept otherwise. */
function rawSection(sections, index, path, context) {
    const area = el('textarea', { class: 'raw', rows: 8, spellcheck: 'false', value: JSON.stringify(sections[index], null, 2) });
    area.addEventListener('input', () => {
        try {
            sections[index] = JSON.parse(area.value);
            area.setCustomValidity('');
            area.removeAttribute('aria-invalid');
            context.changed();
        } catch {
            area.setCustomValidity('not valid JSON');
            area.setAttribute('aria-invalid', 'true');
        }
    });
    const field = labelled('Section as JSON', area, { 'data-key-path': path });
    field.append(el('p', { class: 'hint', text: 'The vocabulary has no such type: this section is kept as it is, edited here as JSON.' }));
    return field;
}

function duplicate(section, sections) {
    const copy = deepCopy(section);
    if (copy && typeof copy.id === 'string') copy.id = freshID(copy.id.replace(/-copy(-\d+)?$/, '') + '-copy', sections);
    return copy;
}

/** `hero`, `hero-2`, …: the first id no section of the list has. */
function freshID(base, sections) {
    const stem = base.replace(/_/g, '-');
    const taken = new Set(sections.map((s) => s?.id));
    if (!taken.has(stem)) return stem;
    let n = 2;
    while (taken.has(`${stem}-${n}`)) n += 1;
    return `${stem}-${n}`;
}

function capitalized(text) {
    return text.charAt(0).toUpperCase() + text.slice(1);
}
