// Subscriptions: list, create (and "edit as new": subscriptions cannot be changed in place), and the pattern tester:
// paste or pick an event and see whether the pattern and filter match it, and why not.

import {del, get, post, linesIn} from '../api.js';
import {clearErrors, confirmAction, field, h, mount, pretty, showError, showFieldErrors, table, time, toast}
  from '../dom.js';
import {codeEditor, jsonError} from '../editor.js';
import {listPage} from '../list.js';
import {sampleEvent} from '../sample.js';
import {handoff} from '../state.js';
import {recentEvents} from '../tail.js';

export function render(container, ctx, args) {
  if (args[0] === 'new') return editor(container, ctx, handoff.take('subscription'));
  if (args[0]) return detail(container, ctx, args[0]);
  return list(container, ctx);
}

/** The types a pattern pins, for the list. */
function typesOf(pattern) {
  const t = pattern && pattern.type;
  if (!Array.isArray(t)) return pattern ? 'pattern' : 'every event';
  return t.map(x => typeof x === 'string' ? x : JSON.stringify(x)).join(', ');
}

function list(container, ctx) {
  return listPage(container, {title: 'Subscriptions', bodyId: 'subscriptions-list',
    toolbar: h('a', {class: 'button primary', href: '#/subscriptions/new', id: 'new-subscription'},
      'New subscription'),
    load: async () => {
      const subs = await get('/subscriptions');
      const deliveries = {};
      await Promise.all(subs.slice(0, 100).map(async s => {
        try { deliveries[s.id] = await get('/subscriptions/' + encodeURIComponent(s.id) + '/deliveries'); }
        catch { /* shown as unknown */ }
      }));
      return table([
        {label: 'Name', value: s => h('a', {href: '#/subscriptions/' + encodeURIComponent(s.id)}, s.name)},
        {label: 'Types', value: s => h('code', {}, typesOf(s.pattern))},
        {label: 'Target', value: s => h('code', {}, s.target)},
        {label: 'Pending', num: true, value: s => deliveries[s.id] ? String(deliveries[s.id].pending) : '–'},
        {label: 'Circuit', value: s => deliveries[s.id] && deliveries[s.id].target
          ? h('span', {class: 'circuit ' + deliveries[s.id].target.circuit}, deliveries[s.id].target.circuit) : '–'},
        {label: 'Dead letters', num: true, value: s => deliveries[s.id] && deliveries[s.id].deadLetters
          ? h('a', {href: '#/dead-letters/' + encodeURIComponent(s.id)}, String(deliveries[s.id].deadLetters))
          : (deliveries[s.id] ? '0' : '–')},
        {label: 'Created', value: s => time(s.createdAt)},
      ], subs, {caption: 'Subscriptions', empty: 'No subscriptions yet.',
        rowAttrs: s => ({'data-subscription': s.name})});
    }});
}

function detail(container, ctx, id) {
  const body = h('div');
  mount(container, h('p', {}, h('a', {href: '#/subscriptions'}, '← Subscriptions')), h('h1', {}, 'Subscription'), body);

  async function load() {
    let s;
    let d = null;
    try {
      s = await get('/subscriptions/' + encodeURIComponent(id));
      d = await get('/subscriptions/' + encodeURIComponent(id) + '/deliveries').catch(() => null);
    } catch (e) {
      showError(body, e);
      return;
    }
    container.querySelector('h1').textContent = 'Subscription ' + s.name;
    const shownOnce = handoff.take('secret');
    const tester = patternTester(() => ({pattern: s.pattern ? pretty(s.pattern) : '', filter: s.filter || '',
      target: s.target, transform: s.transform || null, format: s.format || null}), null);
    mount(body,
      h('div', {class: 'grid2'},
        h('section', {class: 'panel', 'aria-labelledby': 'sub-def'},
          h('h2', {id: 'sub-def'}, 'Definition'),
          h('pre', {tabindex: 0}, pretty(s)),
          h('div', {class: 'actions'},
            h('button', {type: 'button', onclick: () => { handoff.subscription = s; location.hash = '#/subscriptions/new'; }},
              'Edit as new subscription'),
            ctx.can('deadLetters') ? h('a', {class: 'button', href: '#/dead-letters/' + encodeURIComponent(s.id)},
              'Dead letters') : null,
            h('button', {type: 'button', class: 'danger', onclick: async () => {
              if (!confirmAction('Delete subscription "' + s.name + '"? Its pending deliveries are dropped.')) return;
              try {
                await del('/subscriptions/' + encodeURIComponent(s.id));
                toast('Deleted ' + s.name);
                location.hash = '#/subscriptions';
              } catch (e) { toast(e.message, {bad: true}); }
            }}, 'Delete')),
          h('h2', {}, 'Deliveries'),
          d ? h('dl', {},
            h('dt', {}, 'Pending'), h('dd', {}, String(d.pending)),
            h('dt', {}, 'Oldest pending since'), h('dd', {}, time(d.oldestPendingSince) || '–'),
            h('dt', {}, 'Last error'), h('dd', {}, d.lastError || '–'),
            h('dt', {}, 'Dead letters'), h('dd', {}, String(d.deadLetters)))
            : h('p', {class: 'muted'}, 'Not available.'),
          webhookPanel(s, d, shownOnce, load)),
        tester.el));
  }
  return {ready: load()};
}

/** Signing, connection and flow control of a webhook subscription, the target's state, and secret rotation. */
function webhookPanel(s, d, shownOnce, reload) {
  if (!s.signing && !s.connection && !s.flow) return null;
  const secretBox = h('div', {id: 'signing-secret-box'});
  const showSecret = (secret, note) => mount(secretBox, h('div', {class: 'notice', role: 'status'},
    h('p', {}, note), h('code', {id: 'signing-secret'}, secret)));
  if (shownOnce) showSecret(shownOnce, 'The signing secret, shown this once: store it with the receiver now.');
  const overlap = h('input', {type: 'text', id: 'rotate-overlap', value: 'PT24H', spellcheck: 'false'});
  const t = d && d.target;
  const f = s.flow || {};
  return h('div', {id: 'webhook-panel'},
    h('h2', {}, 'Webhook target'),
    h('dl', {},
      h('dt', {}, 'Signing'), h('dd', {}, s.signing ? s.signing.scheme : 'unsigned'),
      h('dt', {}, 'Connection'), h('dd', {}, s.connection || '–'),
      h('dt', {}, 'Rate limit'), h('dd', {}, f.ratePerSecond ? f.ratePerSecond + '/s (burst ' + (f.burst || '–') + ')' : '–'),
      h('dt', {}, 'Timeout'), h('dd', {}, f.timeout || 'default'),
      h('dt', {}, 'Circuit breaker'), h('dd', {}, f.circuitBreaker
        ? f.circuitBreaker.failures + ' failures, open for ' + (f.circuitBreaker.openFor || 'PT30S') : '–'),
      t ? [
        h('dt', {}, 'Circuit'), h('dd', {id: 'target-circuit', class: 'circuit ' + t.circuit}, t.circuit),
        h('dt', {}, 'Sent last second'), h('dd', {}, String(t.sentLastSecond) +
          (t.ratePerSecond ? ' (this replica\'s share ' + t.replicaShare + '/s)' : '')),
        h('dt', {}, 'Held back'), h('dd', {}, String(t.deferred)),
        h('dt', {}, 'Parked'), h('dd', {}, String(t.parked)),
        h('dt', {}, 'Target\'s last error'), h('dd', {}, t.lastError || '–'),
      ] : null),
    s.signing ? h('div', {class: 'actions'},
      field('Overlap of the old secret', overlap, 'ISO-8601, e.g. PT24H; PT0S retires it at once'),
      h('button', {type: 'button', id: 'rotate-secret', onclick: async () => {
        try {
          const r = await post('/subscriptions/' + encodeURIComponent(s.id) + '/signing-secrets',
            {overlap: overlap.value.trim() || null});
          showSecret(r.secret, 'The new signing secret, shown this once. The previous one signs until ' +
            (time(r.previousSecretsExpireAt) || 'now') + '.');
        } catch (e) { toast(e.message, {bad: true}); }
      }}, 'Rotate signing secret')) : null,
    secretBox);
}

/** What the subscription would send for the tested event: headers and body as sent, or why it would not. */
function deliveryPreview(d) {
  if (d.error) {
    return h('div', {class: 'delivery-preview', id: 'delivery-preview', 'data-error': 'true'},
      h('h3', {}, 'Delivery'), h('p', {class: 'error'}, 'Would be dead-lettered: ' + d.error));
  }
  const headers = Object.entries(d.headers || {});
  return h('div', {class: 'delivery-preview', id: 'delivery-preview'},
    h('h3', {}, 'Delivery (as sent)'),
    headers.length ? table([
      {label: 'Header / property', value: e => h('code', {}, e[0])},
      {label: 'Value', value: e => h('code', {}, e[1])},
    ], headers, {caption: 'Headers'}) : h('p', {class: 'muted'}, 'No headers or properties.'),
    h('p', {class: 'muted'}, d.bodyEncoding === 'base64' ? 'Body (base64, not UTF-8 text):' : 'Body:'),
    h('pre', {tabindex: 0, id: 'delivery-body'}, d.body));
}

/**
 * The pattern tester panel. `source()` gives {pattern, filter} text to test; `onResult` is told each verdict.
 */
function patternTester(source, onResult, {patternEditor} = {}) {
  const eventEditor = codeEditor({label: 'Event', name: 'event', rows: 14,
    help: 'A structured-mode CloudEvent (JSON). Paste one, or pick one below.'});
  const handed = handoff.take('event');
  if (handed) eventEditor.value = pretty(handed);
  const typeSelect = h('select', {id: 'tester-type'}, h('option', {value: ''}, '(choose a type)'));
  const recentSelect = h('select', {id: 'tester-recent'}, h('option', {value: ''}, '(choose an event)'));
  const verdict = h('div', {id: 'pattern-verdict', role: 'status', 'aria-live': 'polite'});
  const button = h('button', {type: 'button', class: 'primary', id: 'test-pattern'}, 'Test pattern');

  get('/event-types').then(types => {
    for (const t of types) {
      const o = h('option', {value: t.type}, t.type);
      o.typeDef = t;
      typeSelect.append(o);
    }
  }).catch(() => { typeSelect.disabled = true; });
  recentEvents.forEach((e, i) => recentSelect.append(h('option', {value: String(i)}, e.type + ' · ' + e.id)));
  if (!recentEvents.length) recentSelect.disabled = true;

  typeSelect.addEventListener('change', () => {
    const o = typeSelect.selectedOptions[0];
    if (o && o.typeDef) eventEditor.value = pretty(sampleEvent(o.typeDef));
  });
  recentSelect.addEventListener('change', () => {
    const e = recentEvents[Number(recentSelect.value)];
    if (e) eventEditor.value = pretty(e);
  });

  async function test() {
    const {pattern, filter, target, transform, format} = source();
    eventEditor.setErrors([]);
    const eventErr = jsonError(eventEditor.value);
    if (!eventEditor.value.trim()) {
      eventEditor.setErrors([{line: null, message: 'Paste an event or pick one first.'}]);
      return;
    }
    if (eventErr) { eventEditor.setErrors([eventErr]); return; }
    let patternValue = null;
    if (pattern.trim()) {
      const err = jsonError(pattern);
      if (err) {
        if (patternEditor) patternEditor.setErrors([err]);
        mount(verdict, h('div', {class: 'verdict nomatch'}, h('strong', {}, 'The pattern is not valid JSON.')));
        return;
      }
      patternValue = JSON.parse(pattern);
    }
    try {
      const request = {pattern: patternValue, filter: filter || null, event: JSON.parse(eventEditor.value)};
      if (target) Object.assign(request, {target, transform: transform || null, format: format || null});
      const r = await post('/patterns/test', request);
      mount(verdict, h('div', {class: 'verdict ' + (r.matches ? 'match' : 'nomatch'), 'data-matches': String(r.matches)},
        h('strong', {}, r.matches ? '✓ Matches' : '✗ Does not match'),
        h('span', {class: 'reason'}, r.reason),
        r.mismatches.length ? table([
          {label: 'Field', value: m => h('code', {}, m.field)},
          {label: 'Pattern wants', value: m => h('code', {}, JSON.stringify(m.expected))},
          {label: 'Event has', value: m => m.actual === null ? h('em', {}, 'nothing') : h('code', {}, JSON.stringify(m.actual))},
        ], r.mismatches, {caption: 'Fields that do not match'}) : null,
        r.delivery ? deliveryPreview(r.delivery) : null));
      onResult && onResult(r);
    } catch (e) {
      const where = e.field || '';
      if (where.startsWith('event')) {
        eventEditor.setErrors([{line: null, message: (where ? where + ': ' : '') + e.message}]);
      } else if (where === 'pattern' && patternEditor) {
        patternEditor.setErrors([{line: null, message: e.message}]);
      }
      mount(verdict, h('div', {class: 'verdict nomatch', 'data-matches': 'error'}, h('strong', {}, 'Cannot test'),
        h('span', {class: 'reason'}, e.message)));
    }
  }
  button.addEventListener('click', test);

  const el = h('section', {class: 'panel', 'aria-labelledby': 'tester-title', id: 'pattern-tester'},
    h('h2', {id: 'tester-title'}, 'Pattern tester'),
    h('div', {class: 'row form'},
      h('div', {}, h('label', {for: 'tester-type'}, 'Sample of a registered type'), typeSelect),
      h('div', {}, h('label', {for: 'tester-recent'}, 'Recent event from a live tail'), recentSelect)),
    eventEditor.el,
    h('div', {class: 'actions'}, button),
    verdict);
  return {el, test, eventEditor};
}

function editor(container, ctx, from) {
  const patternEditor = codeEditor({label: 'Pattern', name: 'pattern', rows: 8,
    value: from && from.pattern ? pretty(from.pattern) : '{\n  "type": [""]\n}',
    help: 'An Event Ruler (EventBridge) pattern over the structured CloudEvent; empty for every event.'});
  const input = (name, value, attrs = {}) => h('input', {type: 'text', name, value: value ?? '', spellcheck: 'false',
    ...attrs});
  const retry = from && from.retry ? from.retry : {};
  const flow = from && from.flow ? from.flow : {};
  const breaker = flow.circuitBreaker || {};
  const transform = from && from.transform ? from.transform : {};
  const ordering = from && from.ordering ? from.ordering : {};
  const form = h('form', {class: 'form', id: 'subscription-form', novalidate: true},
    field('Name', input('name', from ? from.name + ' (copy)' : '', {id: 'sub-name', required: true})),
    patternEditor.el,
    field('CESQL filter (optional)', input('filter', from ? from.filter : '', {id: 'sub-filter'}),
      'e.g. source LIKE \'/meters/%\''),
    field('Target', input('target', from ? from.target : '', {id: 'sub-target', required: true}),
      'A channel URI: https://host/hook, jms:queue:name, sqs:queue, kafka:topic'),
    field('Dead-letter channel (optional)', input('deadLetter', from ? from.deadLetter : '', {id: 'sub-dead-letter'})),
    h('fieldset', {},
      h('legend', {}, 'Transformation and format (optional)'),
      field('Data (JSONata)', h('textarea', {name: 'transform.data', id: 'sub-transform-data', rows: 4,
        spellcheck: 'false'}, transform.data || ''),
        'An expression over the whole event giving the delivered data, e.g. {\'ref\': data.orderId, \'amount\': data.total}'),
      field('Attributes (JSON object of JSONata)', h('textarea', {name: 'transform.attributes',
        id: 'sub-transform-attributes', rows: 3, spellcheck: 'false'},
        transform.attributes && Object.keys(transform.attributes).length ? pretty(transform.attributes) : ''),
        'e.g. {"type": "\'com.partner.order\'", "subject": "data.orderId"}'),
      field('Delivery format', h('select', {name: 'format', id: 'sub-format'},
        ...[['', '(the transport\'s default)'], ['structured', 'structured: one CloudEvent JSON body'],
          ['binary', 'binary: data as body, attributes as headers'],
          ['data', 'data: the data alone, for consumers that do not read CloudEvents']].map(([value, label]) =>
          h('option', {value, selected: (from && from.format || '') === value ? true : null}, label))))),
    h('fieldset', {},
      h('legend', {}, 'Retries (empty: defaults)'),
      h('div', {class: 'row'},
        field('Max attempts', input('retry.maxAttempts', retry.maxAttempts, {inputmode: 'numeric', id: 'sub-attempts'})),
        field('Initial backoff', input('retry.initialBackoff', retry.initialBackoff, {id: 'sub-initial'})),
        field('Max backoff', input('retry.maxBackoff', retry.maxBackoff, {id: 'sub-max-backoff'})),
        field('Max age', input('retry.maxAge', retry.maxAge, {id: 'sub-max-age'})),
        field('Max pending', input('retry.maxPending', retry.maxPending, {inputmode: 'numeric', id: 'sub-pending'})))),
    h('fieldset', {},
      h('legend', {}, 'Ordering per key (optional)'),
      h('div', {class: 'row'},
        field('Key', input('ordering.key', ordering.key, {id: 'sub-ordering-key'}),
          'An attribute (subject) or a data path (data.orderId): its events are delivered one at a time, in order'),
        field('Max wait', input('ordering.maxWait', ordering.maxWait, {id: 'sub-ordering-max-wait'}),
          'How long one failing event may hold up its key, e.g. PT30S (empty: the retry max age)'))),
    h('fieldset', {},
      h('legend', {}, 'Webhook target (http/https only; all optional)'),
      h('label', {class: 'checkbox'}, h('input', {type: 'checkbox', name: 'signing', id: 'sub-signing',
        ...(from && from.signing ? {checked: true} : {})}), 'Sign deliveries (Standard Webhooks)'),
      h('div', {class: 'row'},
        field('Connection', input('connection', from ? from.connection : '', {id: 'sub-connection'}),
          'The name of one of your connections'),
        field('Rate per second', input('flow.ratePerSecond', flow.ratePerSecond, {inputmode: 'decimal', id: 'sub-rate'})),
        field('Burst', input('flow.burst', flow.burst, {inputmode: 'numeric', id: 'sub-burst'})),
        field('Timeout', input('flow.timeout', flow.timeout, {id: 'sub-timeout'}))),
      h('div', {class: 'row'},
        field('Breaker: failures', input('flow.circuitBreaker.failures', breaker.failures,
          {inputmode: 'numeric', id: 'sub-breaker-failures'})),
        field('Breaker: open for', input('flow.circuitBreaker.openFor', breaker.openFor, {id: 'sub-breaker-open'})))),
    from ? h('label', {class: 'checkbox'}, h('input', {type: 'checkbox', name: 'replace', id: 'sub-replace'}),
      'Delete the original "' + from.name + '" after saving (its pending deliveries and dead letters are dropped)')
      : null,
    h('p', {class: 'error', role: 'alert', id: 'sub-form-error'}),
    h('div', {class: 'actions'}, h('button', {type: 'submit', class: 'primary', id: 'save-subscription'}, 'Save subscription'),
      h('a', {class: 'button', href: '#/subscriptions'}, 'Cancel')));

  /** The transformation and format in the form; attributes that are not a JSON object are left to the server. */
  function delivery() {
    const data = form.elements['transform.data'].value.trim();
    const attributesText = form.elements['transform.attributes'].value.trim();
    let attributes = null;
    if (attributesText) {
      try { attributes = JSON.parse(attributesText); } catch (e) { attributes = {'': attributesText}; }
    }
    const transformBody = data || attributes ? {data: data || null, attributes} : null;
    return {transform: transformBody, format: form.elements.format.value || null};
  }

  const tester = patternTester(() => ({pattern: patternEditor.value, filter: form.elements.filter.value.trim(),
    target: form.elements.target.value.trim() || null, ...delivery()}), null, {patternEditor});

  form.addEventListener('submit', async e => {
    e.preventDefault();
    clearErrors(form);
    patternEditor.setErrors([]);
    const v = name => form.elements[name].value.trim();
    let pattern = null;
    if (patternEditor.value.trim()) {
      const err = jsonError(patternEditor.value);
      if (err) { patternEditor.setErrors([err]); patternEditor.textarea.focus(); return; }
      pattern = JSON.parse(patternEditor.value);
    }
    const retryBody = {};
    for (const k of ['maxAttempts', 'initialBackoff', 'maxBackoff', 'maxAge', 'maxPending']) {
      const value = v('retry.' + k);
      if (value) retryBody[k] = /^\d+$/.test(value) ? Number(value) : value;
    }
    const num = value => /^\d+(\.\d+)?$/.test(value) ? Number(value) : value;
    const flowBody = {};
    if (v('flow.ratePerSecond')) flowBody.ratePerSecond = num(v('flow.ratePerSecond'));
    if (v('flow.burst')) flowBody.burst = num(v('flow.burst'));
    if (v('flow.timeout')) flowBody.timeout = v('flow.timeout');
    if (v('flow.circuitBreaker.failures') || v('flow.circuitBreaker.openFor')) {
      flowBody.circuitBreaker = {failures: v('flow.circuitBreaker.failures') ? num(v('flow.circuitBreaker.failures')) : null,
        openFor: v('flow.circuitBreaker.openFor') || null};
    }
    const body = {name: v('name'), pattern, filter: v('filter') || null, target: v('target'),
      deadLetter: v('deadLetter') || null, retry: Object.keys(retryBody).length ? retryBody : null,
      signing: form.elements.signing.checked ? {scheme: 'standard-webhooks'} : null,
      connection: v('connection') || null, flow: Object.keys(flowBody).length ? flowBody : null,
      ordering: v('ordering.key') || v('ordering.maxWait')
        ? {key: v('ordering.key') || null, maxWait: v('ordering.maxWait') || null} : null, ...delivery()};
    try {
      const created = await post('/subscriptions', body);
      if (from && form.elements.replace && form.elements.replace.checked) {
        await del('/subscriptions/' + encodeURIComponent(from.id));
      }
      if (created.secret) handoff.secret = created.secret;
      toast('Saved subscription ' + created.name);
      location.hash = '#/subscriptions/' + encodeURIComponent(created.id);
    } catch (err) {
      const problem = err.problem && (err.problem.errors || err.problem.field) ? err.problem
        : {detail: err.message, field: err.field};
      const errors = problem.errors && problem.errors.length ? problem.errors
        : [{field: problem.field, reason: problem.detail || err.message}];
      const patternErrors = errors.filter(x => x.field === 'pattern');
      if (patternErrors.length) {
        patternEditor.setErrors(patternErrors.map(x => ({line: (linesIn(x.reason)[0] || {}).line || null,
          message: x.reason})));
      }
      const left = showFieldErrors(form, {errors: errors.filter(x => x.field !== 'pattern')});
      form.querySelector('#sub-form-error').textContent = left.length
        ? left.map(x => (x.field ? x.field + ': ' : '') + x.reason).join(' ') : (patternErrors.length ? '' : '');
      if (patternErrors.length) patternEditor.textarea.focus();
    }
  });

  mount(container,
    h('p', {}, h('a', {href: '#/subscriptions'}, '← Subscriptions')),
    h('h1', {}, from ? 'Edit as new subscription' : 'New subscription'),
    from ? h('p', {class: 'notice'}, 'Subscriptions cannot be changed in place: saving creates a new subscription ' +
      '(a new id); the original stays unless you tick the box below.') : null,
    h('div', {class: 'grid2'}, h('section', {class: 'panel', 'aria-label': 'Subscription'}, form), tester.el));
  return {};
}
