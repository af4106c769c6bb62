// Rules (Drools DRL): list, editor with the compiler's errors at their lines, delete, metrics, recent executions,
// and a live tail of the events the rule set receives.

import {del, get, post, put, query, linesIn} from '../api.js';
import {confirmAction, h, mount, num, showError, table, time, toast} from '../dom.js';
import {codeEditor} from '../editor.js';
import {listPage} from '../list.js';
import {tailPanel} from '../tail.js';

const TEMPLATE = `rule "high reading"
when
  $e : Event( type == "com.example.meter.reading", number("value") > 90 )
then
  actions.run("log", Map.of("event", $e));
end
`;

export function render(container, ctx, args) {
  if (args[0] === 'new') return editorPage(container, ctx, null);
  if (args[0]) return editorPage(container, ctx, args[0]);
  return list(container, ctx);
}

/** Totals of a family in the last 5 minutes, or null when statistics are not available. */
export async function recentTotals(ctx, family) {
  if (!ctx.can('stats')) return null;
  try {
    const s = await get('/stats' + query({window: '5m', series: family}));
    return s.totals[family] || {};
  } catch {
    return null;
  }
}

/** Compiler messages as editor errors: every "line N" named in a reason marks that line. */
export function compilerErrors(err, fieldName) {
  const errors = (err.errors && err.errors.length ? err.errors : [{field: err.field, reason: err.message}])
    .filter(e => !e.field || e.field === fieldName);
  return errors.map(e => {
    const at = linesIn(e.reason)[0] || {};
    return {line: at.line || null, column: at.column || null, message: e.reason};
  });
}

function list(container, ctx) {
  return listPage(container, {title: 'Rules', bodyId: 'rules-list',
    toolbar: h('a', {class: 'button primary', href: '#/rules/new', id: 'new-rule'}, 'New rule set'),
    load: async () => {
      const [rules, matches, failures] = await Promise.all([get('/rules'), recentTotals(ctx, 'ruleMatches'),
        recentTotals(ctx, 'ruleActionFailures')]);
      return table([
        {label: 'Name', value: r => h('a', {href: '#/rules/' + encodeURIComponent(r.name)}, r.name)},
        {label: 'State', value: r => h('span', {class: r.deployed ? 'badge ok' : 'badge bad'},
          r.deployed ? 'deployed' : 'not deployed')},
        {label: 'Version', num: true, value: r => String(r.version)},
        {label: 'Event types', value: r => h('code', {}, r.types.join(', ') || '–')},
        {label: 'Firings (5 min)', num: true, value: r => matches ? num(matches[r.name] || 0, 0) : '–'},
        {label: 'Failed actions (5 min)', num: true, value: r => failures ? num(failures[r.name] || 0, 0) : '–'},
        {label: 'Updated', value: r => time(r.updatedAt)},
      ], rules, {caption: 'Rule sets', empty: 'No rule sets yet.'});
    }});
}

function editorPage(container, ctx, name) {
  const nameInput = h('input', {type: 'text', id: 'rule-name', name: 'name', spellcheck: 'false',
    'aria-describedby': 'rule-name-error'});
  const drl = codeEditor({label: 'DRL', name: 'drl', rows: 16, value: name ? '' : TEMPLATE,
    help: 'Rules see Event facts and the global "actions"; imports are added for you.'});
  const partition = h('input', {type: 'text', id: 'rule-partition', name: 'partitionBy', spellcheck: 'false'});
  const status = h('p', {role: 'status', id: 'rule-status'});
  const side = h('div');
  const disposers = [];
  let current = null;

  const save = h('button', {type: 'submit', class: 'primary', id: 'save-rule'}, 'Save');
  const remove = name ? h('button', {type: 'button', class: 'danger', id: 'delete-rule'}, 'Delete') : null;
  const form = h('form', {class: 'form', id: 'rule-form', novalidate: true},
    name ? null : h('div', {class: 'field'}, h('label', {for: 'rule-name'}, 'Name'), nameInput,
      h('p', {class: 'error', id: 'rule-name-error', 'data-error-for': 'name'})),
    drl.el,
    h('div', {class: 'field'}, h('label', {for: 'rule-partition'}, 'Partition by (optional, several replicas)'),
      partition, h('p', {class: 'help'}, 'A CloudEvents attribute (subject) or a data path (data.meter).')),
    h('div', {class: 'actions'}, save, remove, h('a', {class: 'button', href: '#/rules'}, 'Back to rules')),
    status);

  form.addEventListener('submit', async e => {
    e.preventDefault();
    drl.setErrors([]);
    status.textContent = '';
    const ruleName = name || nameInput.value.trim();
    const body = {drl: drl.value, partitionBy: partition.value.trim() || null};
    try {
      const saved = name ? await put('/rules/' + encodeURIComponent(name), body)
        : await post('/rules', {name: ruleName, ...body});
      toast('Saved rule set ' + saved.name + ' (version ' + saved.version + ')');
      status.textContent = 'Saved version ' + saved.version + '.';
      if (!name) location.hash = '#/rules/' + encodeURIComponent(saved.name);
      else load();
    } catch (err) {
      if (err.field === 'name' || (err.errors || []).some(x => x.field === 'name')) {
        nameInput.setAttribute('aria-invalid', 'true');
        form.querySelector('#rule-name-error').textContent = err.message;
        nameInput.focus();
        return;
      }
      const errors = compilerErrors(err, 'drl');
      drl.setErrors(errors.length ? errors : [{line: null, message: err.message}]);
      status.textContent = name ? 'Not saved: the running version stays active.' : 'Not saved.';
      const first = errors.find(x => x.line);
      if (first) drl.focusLine(first.line); else drl.textarea.focus();
    }
  });
  if (remove) {
    remove.addEventListener('click', async () => {
      if (!confirmAction('Delete rule set "' + name + '"?')) return;
      try {
        await del('/rules/' + encodeURIComponent(name));
        toast('Deleted ' + name);
        location.hash = '#/rules';
      } catch (e) { toast(e.message, {bad: true}); }
    });
  }

  mount(container,
    h('p', {}, h('a', {href: '#/rules'}, '← Rules')),
    h('h1', {}, name ? 'Rule set ' + name : 'New rule set'),
    h('div', {class: 'grid2'}, h('section', {class: 'panel', 'aria-label': 'Editor'}, form), side));

  async function load() {
    if (!name) {
      mount(side, h('section', {class: 'panel'}, h('h2', {}, 'Writing rules'),
        h('p', {}, 'Conditions match ', h('code', {}, 'Event'), ' facts: ', h('code', {}, 'type'), ', ',
          h('code', {}, 'number("a.b")'), ', ', h('code', {}, 'text("a")'), ', ', h('code', {}, 'has("a")'), '.'),
        h('p', {}, 'Actions: ', h('code', {}, 'actions.run("webhook" | "publish" | "send" | "log", Map.of(...))'), '.')));
      return;
    }
    try {
      const [rule, executions, matches, failures] = await Promise.all([
        get('/rules/' + encodeURIComponent(name)), get('/rules/' + encodeURIComponent(name) + '/executions'),
        recentTotals(ctx, 'ruleMatches'), recentTotals(ctx, 'ruleActionFailures')]);
      if (!current) {
        drl.value = rule.drl;
        partition.value = rule.partitionBy || '';
      }
      current = rule;
      const types = rule.types.filter(t => t !== '*');
      const tail = ctx.can('stream') ? tailPanel({id: 'rule-tail', title: 'Events it receives (live)',
        editable: false, pattern: types.length && !rule.types.includes('*') ? JSON.stringify({type: types}) : '',
        max: 50}) : null;
      disposers.forEach(d => d());
      disposers.length = 0;
      if (tail) disposers.push(tail.dispose);
      mount(side,
        h('section', {class: 'panel', 'aria-labelledby': 'rule-metrics'},
          h('h2', {id: 'rule-metrics'}, 'State and metrics'),
          h('p', {}, h('span', {class: rule.deployed ? 'badge ok' : 'badge bad'}, rule.deployed ? 'deployed' : 'not deployed'),
            ' version ' + rule.version + ', updated ' + time(rule.updatedAt)),
          h('p', {}, 'Event types: ', h('code', {}, rule.types.join(', ') || '–')),
          matches ? h('p', {}, 'Last 5 minutes: ' + num(matches[name] || 0, 0) + ' firings, ' +
            num((failures || {})[name] || 0, 0) + ' failed actions.') : null),
        h('section', {class: 'panel', 'aria-labelledby': 'rule-executions'},
          h('h2', {id: 'rule-executions'}, 'Recent executions'),
          h('div', {class: 'toolbar'}, h('button', {type: 'button', onclick: load}, 'Refresh')),
          table([
            {label: 'Time', value: x => time(x.time)},
            {label: 'Rule', value: x => x.firedRule},
            {label: 'Event', value: x => h('code', {}, x.eventId || '–')},
            {label: 'Action', value: x => x.handler},
            {label: 'Outcome', value: x => h('span', {class: x.outcome === 'succeeded' ? 'badge ok' : 'badge bad'},
              x.outcome)},
            {label: 'Attempts', num: true, value: x => String(x.attempts)},
            {label: 'Error', value: x => x.error || ''},
          ], executions, {caption: 'Recent executions', empty: 'No actions ran yet.'})),
        tail ? tail.el : null);
    } catch (e) {
      showError(side, e);
    }
  }
  return {ready: load(), dispose: () => disposers.forEach(d => d())};
}
