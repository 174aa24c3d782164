// A table whose body is drawn a window at a time: only the rows in view, plus a margin, so a
// table of 10,000 rows opens at once. Every row is one line high (dashboard.css: 34px).
import { el, clear } from './dom.js';

const rowHeight = 34;
const margin = 20;

/**
 * Puts `table` in a scrolling box (`scroller`); `show(items)` makes it list them, drawing
 * `makeRow(item)` for those in view. `aria-rowcount` and `aria-rowindex` tell assistive
 * technology where the drawn rows are.
 */
export function windowedTable(table, makeRow) {
    const body = el('tbody');
    table.append(body);
    const scroller = el('div', { class: 'page-scroller', onscroll: () => draw() }, table);
    let items = [];
    let drawn = '';
    function draw(force = false) {
        const first = Math.min(items.length, Math.max(0, Math.floor(scroller.scrollTop / rowHeight) - margin));
        const last = Math.min(items.length, Math.ceil((scroller.scrollTop + scroller.clientHeight) / rowHeight) + margin);
        const key = `${first}-${last}`;
        if (!force && key === drawn) return;
        drawn = key;
        clear(body);
        body.append(spacer(first * rowHeight));
        for (let index = first; index < last; index += 1) {
            const row = makeRow(items[index]);
            row.setAttribute('aria-rowindex', String(index + 2));
            body.append(row);
        }
        body.append(spacer(Math.max(0, items.length - last) * rowHeight));
    }
    return {
        scroller,
        show(list) {
            items = list;
            table.setAttribute('aria-rowcount', String(list.length + 1));
            draw(true);
        },
    };
}

function spacer(height) {
    const tr = el('tr', { class: 'spacer', 'aria-hidden': 'true' });
    tr.style.height = `${height}px`;
    return tr;
}
