// Detectors (Esper EPL): list with state and counters, an editor with the compiler's errors at their lines,
// delete, metrics, and live tails of what a detector receives and emits.

import {del, get, post} from '../api.js';
import {confirmAction, h, mount, num, pretty, showError, table, time, toast} from '../dom.js';
import {codeEditor} from '../editor.js';
import {listPage} from '../list.js';
import {tailPanel} from '../tail.js';
import {compilerErrors, recentTotals} from './rules.js';
import {handoff} from '../state.js';

export function render(container, ctx, args) {
  if (args[0] === 'new') return editor(container, ctx, handoff.take('detector'));
  if (args[0]) return detail(container, ctx, args[0]);
  return list(container, ctx);
}

function list(container, ctx) {
  return listPage(container, {title: 'Detectors', bodyId: 'detectors-list',
    toolbar: h('a', {class: 'button primary', href: '#/detectors/new', id: 'new-detector'}, 'New detector'),
    load: async () => {
      const [detectors, inRates, outRates] = await Promise.all([get('/detectors'), recentTotals(ctx, 'detectorIn'),
        recentTotals(ctx, 'detectorOut')]);
      return table([
        {label: 'Name', value: d => h('a', {href: '#/detectors/' + encodeURIComponent(d.name)}, d.name)},
        {label: 'State', value: d => h('span', {class: d.state === 'deployed' ? 'badge ok' : 'badge bad',
          title: d.error || null}, d.state)},
        {label: 'Inputs', value: d => h('code', {}, Object.entries(d.inputs).map(([a, t]) => a + '=' + t).join(', '))},
        {label: 'Emits', value: d => h('code', {}, d.emits)},
        {label: 'Events in', num: true, value: d => num(d.stats ? d.stats.eventsIn : null, 0)},
        {label: 'Rows out', num: true, value: d => num(d.stats ? d.stats.rowsOut : null, 0)},
        {label: 'In / out (5 min)', num: true, value: d => inRates ? num(inRates[d.name] || 0, 0) + ' / ' +
          num((outRates || {})[d.name] || 0, 0) : '–'},
        {label: 'Created', value: d => time(d.createdAt)},
      ], detectors, {caption: 'Detectors', empty: 'No detectors yet.'});
    }});
}

function parseInputs(text) {
  const inputs = {};
  for (const line of text.split('\n')) {
    const t = line.trim();
    if (!t) continue;
    const eq = t.indexOf('=');
    if (eq < 0) return null;
    inputs[t.slice(0, eq).trim()] = t.slice(eq + 1).trim();
  }
  return inputs;
}

function editor(container, ctx, from) {
  const input = (id, name, value = '') => h('input', {type: 'text', id, name, value, spellcheck: 'false'});
  const err = name => h('p', {class: 'error', 'data-error-for': name});
  const inputs = h('textarea', {id: 'det-inputs', name: 'inputs', rows: 3, spellcheck: 'false', class: 'code'});
  inputs.value = from ? Object.entries(from.inputs).map(([a, t]) => a + ' = ' + t).join('\n')
    : 'R = com.example.meter.reading';
  const epl = codeEditor({label: 'EPL', name: 'epl', rows: 10, value: from ? from.epl
    : 'select data.meter as meter, avg(data.value) as avgValue\nfrom R#length_batch(3)\ngroup by data.meter\nhaving avg(data.value) > 50',
  help: 'Input aliases are typed from the registry\'s schemas, so data.value compares numerically.'});
  const clock = h('select', {id: 'det-clock', name: 'clock'},
    h('option', {value: 'processing-time'}, 'processing time'), h('option', {value: 'event-time'}, 'event time'));
  if (from && from.clock) clock.value = from.clock;
  const status = h('p', {role: 'status', id: 'det-status', class: 'error'});
  const form = h('form', {class: 'form', id: 'detector-form', novalidate: true},
    h('label', {for: 'det-name'}, 'Name'), input('det-name', 'name', from ? from.name + '-2' : ''), err('name'),
    h('label', {for: 'det-inputs'}, 'Inputs (one "alias = event type" per line)'), inputs, err('inputs'),
    epl.el,
    h('label', {for: 'det-emits'}, 'Emits (event type of each output row)'),
    input('det-emits', 'emits', from ? from.emits : 'com.example.meter.overload'), err('emits'),
    h('label', {for: 'det-clock'}, 'Clock'), clock, err('clock'),
    h('label', {for: 'det-partition'}, 'Partition by (optional, several replicas)'),
    input('det-partition', 'partitionBy', from ? from.partitionBy || '' : ''), err('partitionBy'),
    status,
    h('div', {class: 'actions'}, h('button', {type: 'submit', class: 'primary', id: 'save-detector'}, 'Create detector'),
      h('a', {class: 'button', href: '#/detectors'}, 'Cancel')));

  form.addEventListener('submit', async e => {
    e.preventDefault();
    form.querySelectorAll('[data-error-for]').forEach(x => { if (x.tagName === 'P') x.textContent = ''; });
    form.querySelectorAll('[aria-invalid="true"]').forEach(x => x.removeAttribute('aria-invalid'));
    epl.setErrors([]);
    status.textContent = '';
    const parsed = parseInputs(inputs.value);
    if (!parsed) {
      inputs.setAttribute('aria-invalid', 'true');
      form.querySelector('p[data-error-for="inputs"]').textContent = 'Write each input as "alias = event type".';
      inputs.focus();
      return;
    }
    const v = n => form.elements[n].value.trim();
    try {
      const d = await post('/detectors', {name: v('name'), inputs: parsed, epl: epl.value, emits: v('emits'),
        clock: clock.value, partitionBy: v('partitionBy') || null});
      toast('Created detector ' + d.name);
      location.hash = '#/detectors/' + encodeURIComponent(d.name);
    } catch (err2) {
      const errors = err2.errors && err2.errors.length ? err2.errors : [{field: err2.field, reason: err2.message}];
      if (errors.some(x => x.field === 'epl')) {
        const eplErrors = compilerErrors({errors: errors.filter(x => x.field === 'epl')}, 'epl')
          .map(x => x.line ? x : {...x, line: lineOfToken(epl.value, x.message)});
        epl.setErrors(eplErrors);
        const first = eplErrors.find(x => x.line);
        if (first) epl.focusLine(first.line); else epl.textarea.focus();
      }
      for (const x of errors.filter(y => y.field !== 'epl')) {
        const base = (x.field || '').split(/[.[]/)[0];
        const slot = form.querySelector(`p[data-error-for="${CSS.escape(base)}"]`);
        const control = form.elements[base];
        if (slot && control) {
          slot.textContent = x.reason;
          control.setAttribute('aria-invalid', 'true');
          control.focus();
        } else {
          status.textContent = (x.field ? x.field + ': ' : '') + x.reason;
        }
      }
    }
  });

  mount(container, h('p', {}, h('a', {href: '#/detectors'}, '← Detectors')),
    h('h1', {}, from ? 'New detector from ' + from.name : 'New detector'),
    h('p', {class: 'help'}, 'Detectors cannot be changed in place: create a new one (and delete the old one when the ' +
      'new one works).'),
    h('section', {class: 'panel', 'aria-label': 'Detector'}, form));
  return {};
}

function detail(container, ctx, name) {
  const body = h('div');
  const disposers = [];
  mount(container, h('p', {}, h('a', {href: '#/detectors'}, '← Detectors')), h('h1', {}, 'Detector ' + name), body);
  async function load() {
    try {
      const [d, inRates, outRates] = await Promise.all([get('/detectors/' + encodeURIComponent(name)),
        recentTotals(ctx, 'detectorIn'), recentTotals(ctx, 'detectorOut')]);
      const epl = codeEditor({label: 'EPL', name: 'epl', rows: 8, value: d.epl, readonly: true});
      const inputsTail = ctx.can('stream') ? tailPanel({id: 'det-in-tail', title: 'Events it receives (live)',
        editable: false, pattern: JSON.stringify({type: [...new Set(Object.values(d.inputs))]}), max: 50}) : null;
      const outTail = ctx.can('stream') ? tailPanel({id: 'det-out-tail', title: 'Events it emits (live)',
        editable: false, pattern: JSON.stringify({type: [d.emits]}), max: 50}) : null;
      [inputsTail, outTail].filter(Boolean).forEach(t => disposers.push(t.dispose));
      mount(body,
        h('div', {class: 'grid2'},
          h('section', {class: 'panel', 'aria-labelledby': 'det-def'},
            h('h2', {id: 'det-def'}, 'Definition'),
            h('p', {}, h('span', {class: d.state === 'deployed' ? 'badge ok' : 'badge bad'}, d.state),
              d.error ? h('span', {class: 'error'}, ' ' + d.error) : null),
            h('dl', {},
              h('dt', {}, 'Inputs'), h('dd', {}, h('code', {}, pretty(d.inputs))),
              h('dt', {}, 'Emits'), h('dd', {}, h('code', {}, d.emits)),
              h('dt', {}, 'Clock'), h('dd', {}, d.clock),
              h('dt', {}, 'Partition by'), h('dd', {}, d.partitionBy || '–')),
            epl.el,
            h('div', {class: 'actions'},
              h('button', {type: 'button', onclick: () => { handoff.detector = d; location.hash = '#/detectors/new'; }},
                'New detector from this one'),
              h('button', {type: 'button', class: 'danger', onclick: async () => {
                if (!confirmAction('Delete detector "' + name + '"? Its windows are lost.')) return;
                try {
                  await del('/detectors/' + encodeURIComponent(name));
                  toast('Deleted ' + name);
                  location.hash = '#/detectors';
                } catch (e) { toast(e.message, {bad: true}); }
              }}, 'Delete'))),
          h('section', {class: 'panel', 'aria-labelledby': 'det-metrics'},
            h('h2', {id: 'det-metrics'}, 'Metrics'),
            h('dl', {},
              h('dt', {}, 'Events in (since deployed)'), h('dd', {}, num(d.stats.eventsIn, 0)),
              h('dt', {}, 'Rows out (since deployed)'), h('dd', {}, num(d.stats.rowsOut, 0)),
              h('dt', {}, 'Dropped (engine queue full)'), h('dd', {}, num(d.stats.dropped, 0)),
              inRates ? [h('dt', {}, 'Last 5 minutes in / out'),
                h('dd', {}, num(inRates[name] || 0, 0) + ' / ' + num((outRates || {})[name] || 0, 0))] : null))),
        inputsTail ? inputsTail.el : null, outTail ? outTail.el : null);
    } catch (e) {
      showError(body, e);
    }
  }
  return {ready: load(), dispose: () => disposers.forEach(x => x())};
}

/**
 * The line of the token an Esper syntax error names without a position ("Incorrect syntax near 'frm'"): the first
 * line holding it as a word, or null.
 */
function lineOfToken(text, message) {
  const near = /near '([^']+)'/.exec(message || '');
  if (!near) return null;
  const word = new RegExp('(^|[^\\w])' + near[1].replace(/[.*+?^${}()|[\]\\]/g, '\\$&') + '($|[^\\w])');
  const index = text.split('\n').findIndex(line => word.test(line));
  return index < 0 ? null : index + 1;
}
