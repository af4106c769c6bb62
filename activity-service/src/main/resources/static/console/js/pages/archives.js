// Archives and replays (GET/POST/DELETE /api/v1/archives, /api/v1/replays). Says "not available" when the service
// answers 404 (a build without archives).

import {ApiError, del, get, post, query} from '../api.js';
import {clearErrors, confirmAction, field, h, mount, pretty, showFieldErrors, table, time, toast} from '../dom.js';
import {listPage} from '../list.js';

const REPLAYS_KEY = 'activity.console.replays';

export function render(container, ctx) {
  let timer = null;

  function notAvailable() {
    return h('p', {class: 'notice', id: 'archives-unavailable', role: 'status'},
      'Archives and replays are not available on this service.');
  }

  // Fills the body itself: the replays load once their panel stands.
  async function load(body) {
    let archives;
    try {
      archives = await get('/archives');
    } catch (e) {
      if (e instanceof ApiError && (e.status === 404 || e.status === 405)) return notAvailable();
      throw e;
    }
    const list = Array.isArray(archives) ? archives : (archives.items || []);
    const events = h('div', {id: 'archive-events'});
    const replays = h('div', {id: 'replays'});
    mount(body,
      h('section', {class: 'panel', 'aria-labelledby': 'ar-list'}, h('h2', {id: 'ar-list'}, 'Archives'),
        table([
          {label: 'Name', value: a => h('button', {type: 'button', class: 'link', onclick: () => browse(a.name, events)},
            a.name)},
          {label: 'Pattern', value: a => h('code', {}, a.pattern ? JSON.stringify(a.pattern) : 'every event')},
          {label: 'Retention', value: a => a.retention || '–'},
          {label: 'Events', num: true, value: a => a.eventCount === undefined ? '–' : String(a.eventCount)},
          {label: 'Size', num: true, value: a => a.sizeBytes !== undefined ? bytes(a.sizeBytes)
            : a.size !== undefined ? String(a.size) : '–'},
          {label: 'Actions', value: a => h('button', {type: 'button', class: 'danger', onclick: async () => {
            if (!confirmAction('Delete archive "' + a.name + '" and its events?')) return;
            try { await del('/archives/' + encodeURIComponent(a.name)); toast('Deleted ' + a.name); page.reload(); }
            catch (err) { toast(err.message, {bad: true}); }
          }}, 'Delete')},
        ], list, {caption: 'Archives', empty: 'No archives yet.', rowAttrs: a => ({'data-archive': a.name,
          'data-events': String(a.eventCount)})}),
        archiveForm(() => page.reload())),
      events,
      h('section', {class: 'panel', 'aria-labelledby': 'rp-title'}, h('h2', {id: 'rp-title'}, 'Replays'),
        replayForm(list, () => loadReplays(replays)), replays));
    loadReplays(replays);
    return undefined;
  }

  async function loadReplays(target) {
    let rows;
    try {
      const all = await get('/replays');
      rows = Array.isArray(all) ? all : (all.items || []);
    } catch {
      // No list endpoint: follow the replays started from this tab.
      const names = JSON.parse(sessionStorage.getItem(REPLAYS_KEY) || '[]');
      rows = (await Promise.all(names.map(n => get('/replays/' + encodeURIComponent(n)).catch(() => null))))
        .filter(Boolean);
    }
    mount(target, table([
      {label: 'Name', value: r => r.name},
      {label: 'Archive', value: r => r.archive},
      {label: 'State', value: r => h('span', {class: r.state === 'FAILED' ? 'badge bad' : r.state === 'COMPLETED'
        ? 'badge ok' : 'badge'}, r.state)},
      {label: 'Progress', value: r => progress(r)},
      {label: 'Replayed', num: true, value: r => String(r.eventsReplayed ?? r.replayed ?? '–')},
      {label: 'Actions', value: r => r.state === 'RUNNING' ? h('button', {type: 'button', class: 'danger',
        onclick: async () => {
          try { await del('/replays/' + encodeURIComponent(r.name)); toast('Cancelled ' + r.name); loadReplays(target); }
          catch (err) { toast(err.message, {bad: true}); }
        }}, 'Cancel') : ''},
    ], rows, {caption: 'Replays', empty: 'No replays.'}));
    clearTimeout(timer);
    if (rows.some(r => r.state === 'RUNNING')) timer = setTimeout(() => loadReplays(target), 2000);
  }

  const page = listPage(container, {title: 'Archives and replays', bodyId: 'archives-view', load});
  return {...page, dispose: () => clearTimeout(timer)};
}

function progress(r) {
  const p = typeof r.progress === 'number' ? r.progress : null;
  if (p === null) return '–';
  const pct = p <= 1 ? p * 100 : p;
  return h('span', {}, h('progress', {max: 100, value: pct.toFixed(0), 'aria-label': 'Progress of ' + r.name}),
    ' ' + pct.toFixed(0) + ' %');
}

function bytes(n) {
  if (n < 1024) return n + ' B';
  if (n < 1024 * 1024) return (n / 1024).toFixed(1) + ' KiB';
  return (n / 1024 / 1024).toFixed(1) + ' MiB';
}

async function browse(name, target) {
  const form = h('form', {class: 'toolbar', novalidate: true},
    h('label', {for: 'ae-type'}, 'Type'), h('input', {type: 'text', id: 'ae-type', name: 'type'}),
    h('label', {for: 'ae-from'}, 'From'), h('input', {type: 'text', id: 'ae-from', name: 'from', placeholder: 'ISO time'}),
    h('label', {for: 'ae-to'}, 'To'), h('input', {type: 'text', id: 'ae-to', name: 'to', placeholder: 'ISO time'}),
    h('button', {type: 'submit'}, 'Show'));
  const out = h('div', {id: 'archive-events-list'});
  async function show() {
    const v = n => form.elements[n].value.trim();
    try {
      const page = await get('/archives/' + encodeURIComponent(name) + '/events' + query({type: v('type'),
        from: v('from'), to: v('to'), limit: 50}));
      const items = Array.isArray(page) ? page : (page.items || []);
      mount(out, table([
        {label: 'Type', value: e => h('code', {}, (e.event || e).type)},
        {label: 'Id', value: e => (e.event || e).id},
        {label: 'Time', value: e => time((e.event || e).time)},
        {label: 'Event', value: e => h('details', {}, h('summary', {}, 'JSON'), h('pre', {}, pretty(e.event || e)))},
      ], items, {caption: 'Archived events', empty: 'No events.',
        rowAttrs: e => ({'data-event-id': (e.event || e).id})}));
    } catch (e) {
      mount(out, h('p', {class: 'error'}, e.message));
    }
  }
  form.addEventListener('submit', e => { e.preventDefault(); show(); });
  mount(target, h('section', {class: 'panel', 'aria-labelledby': 'ae-title'},
    h('h2', {id: 'ae-title'}, 'Events in ' + name), form, out));
  show();
}

function archiveForm(reload) {
  const err = h('p', {class: 'error', role: 'alert'});
  const form = h('form', {class: 'form', novalidate: true, id: 'archive-form'},
    h('h3', {}, 'New archive'),
    h('div', {class: 'row'},
      field('Name', h('input', {type: 'text', name: 'name', id: 'ar-name'})),
      field('Retention', h('input', {type: 'text', name: 'retention', id: 'ar-retention', value: 'P7D'}),
        'ISO-8601, e.g. P7D')),
    field('Pattern (JSON, empty for every event)', h('textarea', {name: 'pattern', id: 'ar-pattern', rows: 3,
      class: 'code', spellcheck: 'false'})),
    err, h('div', {class: 'actions'}, h('button', {type: 'submit', class: 'primary'}, 'Create archive')));
  form.addEventListener('submit', async e => {
    e.preventDefault();
    clearErrors(form);
    err.textContent = '';
    const v = n => form.elements[n].value.trim();
    let pattern = null;
    try { pattern = v('pattern') ? JSON.parse(v('pattern')) : null; }
    catch (x) { err.textContent = 'pattern: not valid JSON: ' + x.message; return; }
    try {
      await post('/archives', {name: v('name'), pattern, retention: v('retention') || null});
      toast('Created archive ' + v('name'));
      reload();
    } catch (x) {
      const left = showFieldErrors(form, x.problem && x.problem.errors ? x.problem : {field: x.field, detail: x.message});
      err.textContent = left.map(y => (y.field ? y.field + ': ' : '') + y.reason).join(' ');
    }
  });
  return form;
}

function replayForm(archives, reload) {
  const err = h('p', {class: 'error', role: 'alert'});
  const archive = h('select', {name: 'archive', id: 'rp-archive'}, archives.map(a => h('option', {value: a.name}, a.name)));
  const text = (name, id, help) => field(name, h('input', {type: 'text', name: id.replace('rp-', ''), id}), help);
  const form = h('form', {class: 'form', novalidate: true, id: 'replay-form'},
    h('h3', {}, 'Start a replay'),
    h('div', {class: 'row'},
      field('Name', h('input', {type: 'text', name: 'name', id: 'rp-name'})),
      field('Archive', archive)),
    h('div', {class: 'row'},
      text('From', 'rp-from', 'Event time, ISO-8601'),
      text('To', 'rp-to', 'Event time, ISO-8601')),
    h('div', {class: 'row'},
      text('Subscriptions (ids, comma-separated)', 'rp-subscriptions'),
      text('Detectors (names)', 'rp-detectors'),
      text('Rules (names)', 'rp-rules')),
    err, h('div', {class: 'actions'}, h('button', {type: 'submit', class: 'primary'}, 'Start replay')));
  form.addEventListener('submit', async e => {
    e.preventDefault();
    clearErrors(form);
    err.textContent = '';
    const v = n => form.elements[n].value.trim();
    const names = n => v(n).split(',').map(s => s.trim()).filter(Boolean);
    const body = {name: v('name'), archive: archive.value, from: v('from') || null, to: v('to') || null,
      destinations: {subscriptions: names('subscriptions'), detectors: names('detectors'), rules: names('rules')}};
    try {
      await post('/replays', body);
      const started = JSON.parse(sessionStorage.getItem(REPLAYS_KEY) || '[]');
      if (!started.includes(body.name)) started.push(body.name);
      sessionStorage.setItem(REPLAYS_KEY, JSON.stringify(started.slice(-20)));
      toast('Started replay ' + body.name);
      reload();
    } catch (x) {
      const left = showFieldErrors(form, x.problem && x.problem.errors ? x.problem : {field: x.field, detail: x.message});
      err.textContent = left.map(y => (y.field ? y.field + ': ' : '') + y.reason).join(' ');
    }
  });
  return form;
}
