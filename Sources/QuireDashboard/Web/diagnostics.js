// Diagnostics of a draft at their fields: each goes to the field whose key path it names (or
// the nearest enclosing one: `sections[1].items[0]` when the item has no such field), marks
// its control invalid and describes it; every one is also listed above the form.
import { el, clear, uniqueId } from './dom.js';

export function showAtFields(form, summary, diagnostics) {
    for (const old of form.querySelectorAll('.field-message')) old.remove();
    for (const control of form.querySelectorAll('[aria-invalid="true"]')) {
        control.removeAttribute('aria-invalid');
        const ids = (control.getAttribute('aria-describedby') || '').split(' ').filter((id) => !id.startsWith('diagnostic-'));
        if (ids.length) control.setAttribute('aria-describedby', ids.join(' '));
        else control.removeAttribute('aria-describedby');
    }
    clear(summary);
    const errors = diagnostics.filter((d) => d.severity === 'error').length;
    const warnings = diagnostics.length - errors;
    summary.hidden = diagnostics.length === 0;
    if (!diagnostics.length) return;
    summary.append(el('p', { class: errors ? 'error' : 'warning', text: counted(errors, 'error') + ', ' + counted(warnings, 'warning') }));
    const list = summary.appendChild(el('ul'));
    for (const d of diagnostics) {
        const field = d.key_path ? nearestField(form, d.key_path) : null;
        const text = `${d.severity}: ${d.message}`;
        const item = list.appendChild(el('li', { class: d.severity }, d.key_path ? el('code', { text: d.key_path }) : '', d.key_path ? ': ' : '', text));
        if (!field) continue;
        const id = uniqueId('diagnostic');
        field.append(el('p', { class: `field-message ${d.severity}`, id, text }));
        const control = ownControl(field);
        if (control) {
            if (d.severity === 'error') control.setAttribute('aria-invalid', 'true');
            control.setAttribute('aria-describedby', [control.getAttribute('aria-describedby'), id].filter(Boolean).join(' '));
            item.append(' ', el('button', { type: 'button', text: 'Show', 'aria-label': `Show ${d.key_path}`, onclick: () => control.focus() }));
        }
    }
}

function counted(n, noun) {
    return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** `sections[1].items[0].price`, else `sections[1].items[0]`, else `sections[1].items`, … */
function nearestField(form, path) {
    for (let p = path; p; p = p.replace(/(\.[^.[\]]+|\[\d+\])$/, '')) {
        const found = form.querySelector(`[data-key-path="${CSS.escape(p)}"]`);
        if (found) return found;
        if (!/(\.[^.[\]]+|\[\d+\])$/.test(p)) break;
    }
    return null;
}

/** The field's own control (not one of a nested field's). */
function ownControl(field) {
    for (const control of field.querySelectorAll('input, textarea, select')) {
        if (control.closest('[data-key-path]') === field) return control;
    }
    return null;
}
