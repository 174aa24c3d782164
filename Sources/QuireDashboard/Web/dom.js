// Building the DOM from values: text only ever goes in through textContent and value, so no
// page text can become markup (the CSP's Trusted Types would refuse an innerHTML anyway).

let serial = 0;

/** A fresh id for a control, so its <label for> names it. */
export function uniqueId(prefix) {
    serial += 1;
    return `${prefix}-${serial}`;
}

/**
 * `el('button', {type: 'button', text: 'Save', onclick: save}, child...)`: properties named
 * `text`, `class`, `dataset`, `on<event>` and `aria-*` / `data-*` / other attributes.
 */
export function el(tag, props = {}, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(props)) {
        if (value === undefined || value === null || value === false) continue;
        if (key === 'text') node.textContent = String(value);
        else if (key === 'class') node.className = value;
        else if (key === 'dataset') Object.assign(node.dataset, value);
        else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
        else if (key === 'value' || key === 'checked' || key === 'hidden' || key === 'disabled') node[key] = value;
        else node.setAttribute(key, value === true ? '' : String(value));
    }
    append(node, children);
    return node;
}

function append(node, children) {
    for (const child of children) {
        if (child === null || child === undefined || child === false) continue;
        if (Array.isArray(child)) append(node, child);
        else node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
}

export function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
    return node;
}

/** A control with its visible label: `<div class="field"><label for=…>…</label>control</div>`. */
export function labelled(text, control, props = {}) {
    if (!control.id) control.id = uniqueId('field');
    return el('div', { class: 'field', ...props }, el('label', { for: control.id, text }), control);
}

/** `sections[2].title` -> `sections[2].title`; paths are plain strings joined the validator's way. */
export function keyPath(base, key) {
    if (typeof key === 'number') return `${base}[${key}]`;
    return base ? `${base}.${key}` : key;
}

export function deepCopy(value) {
    return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}
