// A code editor that stays a plain <textarea> (so every keyboard, screen reader and browser feature works), with a
// line-number gutter and the compiler's errors shown at their lines: the gutter number turns red, the line gets a
// band, and a list under the editor gives each message with a button that moves the caret to its line.

import {h, mount} from './dom.js';

let counter = 0;

/**
 * @param {{label: string, name: string, value?: string, rows?: number, help?: string, readonly?: boolean}} options
 */
export function codeEditor({label, name, value = '', rows = 12, help, readonly = false}) {
  const id = 'ed-' + (++counter);
  help = [help, readonly ? null : 'Tab indents; press Esc, then Tab, to move on.'].filter(Boolean).join(' ');
  const gutter = h('ol', {class: 'gutter', 'aria-hidden': 'true'});
  const marks = h('div', {class: 'marks', 'aria-hidden': 'true'});
  const errorList = h('ul', {class: 'editor-errors', id: id + '-errors', 'data-error-for': name});
  const textarea = h('textarea', {id, name, rows, spellcheck: 'false', autocapitalize: 'off', autocomplete: 'off',
    wrap: 'off', readonly, 'aria-describedby': [help ? id + '-help' : null, id + '-errors'].filter(Boolean).join(' ')});
  textarea.value = value;
  const el = h('div', {class: 'editor', 'data-editor': name},
    h('label', {for: id}, label),
    help ? h('p', {class: 'help', id: id + '-help'}, help) : null,
    h('div', {class: 'editor-body'}, gutter, h('div', {class: 'code'}, marks, textarea)),
    errorList);

  let errors = [];

  function lineCount() {
    return textarea.value.split('\n').length;
  }

  function renderGutter() {
    const n = Math.max(lineCount(), rows);
    const bad = new Map(errors.filter(e => e.line).map(e => [e.line, e.message]));
    const items = [];
    for (let i = 1; i <= n; i++) {
      items.push(h('li', {class: bad.has(i) ? 'error' : null, 'data-line': i, title: bad.get(i) || null}, String(i)));
    }
    mount(gutter, items);
    syncScroll();
  }

  function renderMarks() {
    const lineHeight = parseFloat(getComputedStyle(textarea).lineHeight) || 20;
    const top = parseFloat(getComputedStyle(textarea).paddingTop) || 8;
    mount(marks, errors.filter(e => e.line).map(e => {
      const band = h('div', {class: 'band', 'data-line': e.line});
      band.style.top = (top + (e.line - 1) * lineHeight - textarea.scrollTop) + 'px';
      return band;
    }));
  }

  function syncScroll() {
    gutter.scrollTop = textarea.scrollTop;
    renderMarks();
  }

  /** Moves the caret to the start of a line and scrolls it into view. */
  function focusLine(line) {
    const lines = textarea.value.split('\n');
    let offset = 0;
    for (let i = 0; i < Math.min(line - 1, lines.length); i++) offset += lines[i].length + 1;
    textarea.focus();
    textarea.setSelectionRange(offset, offset + (lines[line - 1] || '').length);
    const lineHeight = parseFloat(getComputedStyle(textarea).lineHeight) || 20;
    textarea.scrollTop = Math.max(0, (line - 3) * lineHeight);
    syncScroll();
  }

  /** Shows errors: [{line, column, message}] (line may be null for messages without one). */
  function setErrors(list) {
    errors = list || [];
    textarea.setAttribute('aria-invalid', errors.length ? 'true' : 'false');
    mount(errorList, errors.map(e => h('li', {'data-line': e.line || ''},
      e.line ? h('button', {type: 'button', class: 'link', onclick: () => focusLine(e.line)},
        'Line ' + e.line + (e.column ? ', column ' + e.column : '')) : null,
      e.line ? ': ' : '', e.message)));
    renderGutter();
  }

  textarea.addEventListener('input', () => {
    if (errors.length) setErrors([]); else renderGutter();
  });
  textarea.addEventListener('scroll', syncScroll);
  // Tab inserts two spaces; Escape then Tab leaves the editor (keyboard users are never trapped).
  let escaped = false;
  textarea.addEventListener('keydown', e => {
    if (e.key === 'Escape') { escaped = true; return; }
    if (e.key === 'Tab' && !e.shiftKey && !escaped && !readonly) {
      e.preventDefault();
      textarea.setRangeText('  ', textarea.selectionStart, textarea.selectionEnd, 'end');
      textarea.dispatchEvent(new Event('input'));
    }
    escaped = false;
  });
  renderGutter();
  requestAnimationFrame(renderMarks);

  return {
    el, textarea, setErrors, focusLine,
    get value() { return textarea.value; },
    set value(v) { textarea.value = v; setErrors([]); },
  };
}

/** Where JSON.parse failed, as {line, column, message}, or null when the text is valid JSON. */
export function jsonError(text) {
  try {
    JSON.parse(text);
    return null;
  } catch (e) {
    const message = e.message;
    let line = null;
    let column = null;
    const lc = /line (\d+) column (\d+)/.exec(message);
    const pos = /position (\d+)/.exec(message);
    if (lc) {
      line = Number(lc[1]);
      column = Number(lc[2]);
    } else if (pos) {
      const before = text.slice(0, Number(pos[1]));
      line = before.split('\n').length;
      column = before.length - before.lastIndexOf('\n');
    }
    return {line, column, message: 'not valid JSON: ' + message};
  }
}
