// A word diff of two texts (what a stale string's source said when it was translated, and
// what it says now): the longest common run of words kept, the rest marked removed or added.

/** -> [{kind: 'same'|'removed'|'added', text}] */
export function wordDiff(before, after) {
    const a = before.split(/(\s+)/).filter((w) => w !== '');
    const b = after.split(/(\s+)/).filter((w) => w !== '');
    if (a.length * b.length > 4_000_000) return [{ kind: 'removed', text: before }, { kind: 'added', text: after }];
    const table = Array.from({ length: a.length + 1 }, () => new Uint32Array(b.length + 1));
    for (let i = a.length - 1; i >= 0; i--) {
        for (let j = b.length - 1; j >= 0; j--) {
            table[i][j] = a[i] === b[j] ? table[i + 1][j + 1] + 1 : Math.max(table[i + 1][j], table[i][j + 1]);
        }
    }
    const out = [];
    const push = (kind, text) => {
        const last = out[out.length - 1];
        if (last && last.kind === kind) last.text += text;
        else out.push({ kind, text });
    };
    let i = 0;
    let j = 0;
    while (i < a.length && j < b.length) {
        if (a[i] === b[j]) { push('same', a[i]); i++; j++; }
        else if (table[i + 1][j] >= table[i][j + 1]) push('removed', a[i++]);
        else push('added', b[j++]);
    }
    while (i < a.length) push('removed', a[i++]);
    while (j < b.length) push('added', b[j++]);
    return out;
}
