// Small DOM helpers. Text is always set as text (never parsed as HTML), so data from the API cannot inject markup.

/**
 * Creates an element: h('button', {class: 'primary', onclick: fn}, 'Save').
 * Attributes starting with "on" become listeners; null/false attributes are skipped; children may be nested arrays.
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') {
      el.addEventListener(name.slice(2), value);
    } else if (name === 'dataset') {
      Object.assign(el.dataset, value);
    } else if (value === true) {
      el.setAttribute(name, '');
    } else {
      el.setAttribute(name, String(value));
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces an element's content. */
export function mount(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/** Shows an error's message as an alert in place of an element's content. */
export function showError(el, error) {
  return mount(el, h('p', {class: 'error', role: 'alert'}, error.message));
}

/** Pretty JSON. */
export function pretty(value) {
  return JSON.stringify(value, null, 2);
}

/** A table from rows: columns = [{label, value: row => node|text, num}]. */
export function table(columns, rows, {caption, empty = 'Nothing yet.', rowAttrs} = {}) {
  if (!rows.length) return h('p', {class: 'muted'}, empty);
  return h('div', {class: 'table-wrap'},
    h('table', {},
      caption ? h('caption', {class: 'visually-hidden'}, caption) : null,
      h('thead', {}, h('tr', {}, columns.map(c => h('th', {scope: 'col', class: c.num ? 'num' : null}, c.label)))),
      h('tbody', {}, rows.map(r => h('tr', rowAttrs ? rowAttrs(r) : {},
        columns.map(c => h('td', {class: c.num ? 'num' : null}, c.value(r))))))));
}

/** Says something to screen readers (and keeps it in the live region for tests). */
export function announce(text) {
  const el = document.getElementById('announcer');
  if (el) el.textContent = text;
}

/** A short message in the corner; also announced. */
export function toast(text, {bad = false} = {}) {
  const box = document.getElementById('toasts');
  const t = h('div', {class: bad ? 'toast bad' : 'toast', role: bad ? 'alert' : null}, text);
  box.append(t);
  announce(text);
  setTimeout(() => t.remove(), bad ? 8000 : 4000);
}

/** Local time of an ISO timestamp or epoch milliseconds. */
export function time(value) {
  if (value === null || value === undefined || value === '') return '';
  const d = new Date(value);
  return isNaN(d) ? String(value) : d.toLocaleString();
}

/** A number with at most `digits` decimals. */
export function num(value, digits = 1) {
  if (value === null || value === undefined || Number.isNaN(value)) return '–';
  return Number(value).toLocaleString(undefined, {maximumFractionDigits: digits});
}

/** A labelled input: returns the wrapper; the control has id and name. */
export function field(label, control, help) {
  const id = control.id || (control.id = 'f-' + Math.random().toString(36).slice(2, 9));
  const helpId = id + '-help';
  const errId = id + '-error';
  control.setAttribute('aria-describedby', [help ? helpId : null, errId].filter(Boolean).join(' '));
  return h('div', {class: 'field'},
    h('label', {for: id}, label),
    control,
    help ? h('p', {class: 'help', id: helpId}, help) : null,
    h('p', {class: 'error', id: errId, 'data-error-for': control.getAttribute('name') || ''}));
}

/** Clears field errors of a form. */
export function clearErrors(form) {
  form.querySelectorAll('[aria-invalid="true"]').forEach(el => el.removeAttribute('aria-invalid'));
  form.querySelectorAll('[data-error-for]').forEach(el => { el.textContent = ''; });
}

/**
 * Shows a problem's field errors next to the controls named like the field (name="retry.maxAttempts"); returns the
 * errors no control took, for the caller to show elsewhere.
 */
export function showFieldErrors(form, problem) {
  const left = [];
  const errors = Array.isArray(problem.errors) ? problem.errors
    : [{field: problem.field || '', reason: problem.detail || problem.message}];
  let first = null;
  for (const e of errors) {
    const control = e.field ? form.querySelector(`[name="${CSS.escape(e.field)}"]`) : null;
    const slot = e.field ? form.querySelector(`[data-error-for="${CSS.escape(e.field)}"]`) : null;
    if (control && slot) {
      control.setAttribute('aria-invalid', 'true');
      slot.textContent = (slot.textContent ? slot.textContent + ' ' : '') + e.reason;
      first = first || control;
    } else {
      left.push(e);
    }
  }
  if (first) first.focus();
  return left;
}

/** A confirmation that works with the keyboard (the browser's own dialog). */
export function confirmAction(text) {
  return window.confirm(text);
}
