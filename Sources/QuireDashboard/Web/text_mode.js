// The source file itself in Debian's CodeMirror 5 (loaded by index.html as classic scripts from
// /dashboard/codemirror/, served by nginx from /usr/share/javascript/codemirror/), with each
// diagnostic marked at its line and column and listed under the editor.
import { el, clear } from './dom.js';

export class TextMode {
    /** `format`: 'yaml' or 'json'; `changed(text)` after every edit. */
    constructor(container, { format, changed }) {
        this.container = container;
        this.marks = [];
        const area = el('textarea');
        this.list = el('ul', { class: 'text-diagnostics', 'aria-label': 'Diagnostics in the text' });
        container.append(area, this.list);
        this.editor = window.CodeMirror.fromTextArea(area, {
            mode: format === 'json' ? { name: 'javascript', json: true } : 'yaml',
            lineNumbers: true,
            indentUnit: 2,
            tabSize: 2,
            indentWithTabs: false,
            lineWrapping: true,
            inputStyle: 'textarea',
            extraKeys: { Tab: (cm) => cm.replaceSelection('  ') },
        });
        this.editor.getInputField().setAttribute('aria-label', 'Source text');
        this.silent = false;
        this.editor.on('change', () => {
            if (!this.silent) changed(this.editor.getValue());
        });
    }

    get text() {
        return this.editor.getValue();
    }

    set text(value) {
        this.silent = true;
        this.editor.setValue(value);
        this.silent = false;
    }

    refresh() {
        this.editor.refresh();
    }

    focus() {
        this.editor.focus();
    }

    /** Marks each diagnostic with a line at its position (1-based line and column). */
    showDiagnostics(diagnostics) {
        for (const mark of this.marks) mark.clear();
        this.editor.eachLine((line) => this.editor.removeLineClass(line, 'background'));
        this.marks = [];
        clear(this.list);
        for (const d of diagnostics) {
            const where = typeof d.line === 'number' ? `${d.line}:${d.column ?? 1}` : '';
            const item = el('li', { class: d.severity }, `${where ? where + ': ' : ''}${d.severity}: ${d.key_path ? d.key_path + ': ' : ''}${d.message}`);
            if (typeof d.line === 'number' && d.line >= 1 && d.line <= this.editor.lineCount()) {
                const line = d.line - 1;
                const from = { line, ch: Math.max(0, (d.column ?? 1) - 1) };
                const length = this.editor.getLine(line).length;
                const to = { line, ch: from.ch < length ? length : from.ch + 1 };
                this.marks.push(this.editor.markText(from, to, { className: `cm-${d.severity === 'error' ? 'error' : 'warning'}-mark`, title: d.message }));
                this.editor.addLineClass(line, 'background', `line-${d.severity === 'error' ? 'error' : 'warning'}`);
                item.append(' ', el('button', { type: 'button', text: 'Go to', 'aria-label': `Go to line ${d.line}`, onclick: () => {
                    this.editor.setCursor(from);
                    this.editor.focus();
                } }));
            }
            this.list.append(item);
        }
    }
}
