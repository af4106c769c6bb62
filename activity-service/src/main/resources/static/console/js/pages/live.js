// Live view: rates in and out, routing latency, failures and dead letters (from GET /api/v1/stats, refreshed every
// two seconds), the mean time per hop of each path (transport wait | ingest | route | parked | send) and a live tail
// of events matching a pattern.

import {get, query} from '../api.js';
import {h, mount, num} from '../dom.js';
import {timeChart} from '../charts.js';
import {tailPanel} from '../tail.js';

const REFRESH_MS = 2000;
const HOPS = ['transport', 'ingest', 'route', 'parked', 'send'];
const HOP_LABELS = {transport: 'transport wait', ingest: 'ingest', route: 'route', parked: 'parked', send: 'send'};

/**
 * The stacked per-hop breakdown: one row per path (inbound scheme → target scheme) from the mean milliseconds per
 * hop in the window (GET /api/v1/stats `hops`). Transport wait is by inbound scheme, parked and send by target scheme,
 * ingest and route are common to every path.
 */
function hopsPanel() {
  const body = h('div', {class: 'hop-rows'});
  const el = h('figure', {class: 'chart', id: 'live-hops'},
    h('figcaption', {}, 'Mean time per hop, by path (ms)'),
    h('div', {class: 'hop-legend'}, HOPS.map(k => h('span', {class: 'hop hop-' + k}, HOP_LABELS[k]))),
    body);
  function update(hops) {
    hops = hops || {};
    const common = name => Object.values(hops[name] || {})[0] || 0;
    const ins = Object.keys(hops.transport || {});
    const outs = [...new Set([...Object.keys(hops.send || {}), ...Object.keys(hops.parked || {})])];
    const rows = [];
    for (const i of ins.length ? ins : ['any']) {
      for (const o of outs.length ? outs : ['none']) {
        const ms = {
          transport: (hops.transport || {})[i] || 0, ingest: common('ingest'), route: common('route'),
          parked: (hops.parked || {})[o] || 0, send: (hops.send || {})[o] || 0,
        };
        rows.push({path: i + ' → ' + o, ms, total: HOPS.reduce((a, k) => a + ms[k], 0)});
      }
    }
    const max = Math.max(...rows.map(r => r.total), 1e-9);
    const timed = HOPS.some(k => Object.keys(hops[k] || {}).length);
    mount(body, !timed ? h('p', {class: 'muted'}, 'No event timed in this window.') : rows.map(r =>
      h('div', {class: 'hop-row', dataset: {path: r.path}},
        h('span', {class: 'hop-path'}, r.path),
        h('span', {class: 'hop-bar'}, HOPS.filter(k => r.ms[k] > 0).map(k => {
          const seg = h('span', {class: 'hop hop-' + k, dataset: {hop: k, ms: r.ms[k].toFixed(3)},
            title: HOP_LABELS[k] + ' ' + num(r.ms[k], 2) + ' ms'});
          seg.style.width = (100 * r.ms[k] / max).toFixed(2) + '%'; // CSSOM: allowed by the CSP, unlike style=""
          return seg;
        })),
        h('span', {class: 'hop-total'}, num(r.total, 2) + ' ms'))));
  }
  return {el, update, resize() {}, destroy() {}};
}

export function render(container, ctx) {
  const windowSelect = h('select', {id: 'live-window', name: 'window'},
    ['1m', '5m', '15m'].map(w => h('option', {value: w, selected: w === '5m'}, 'last ' + w)));
  const replica = h('span', {class: 'muted', id: 'live-replica'});
  const updated = h('span', {class: 'muted', id: 'live-updated', 'aria-live': 'off'});
  const pause = h('button', {type: 'button', id: 'live-pause', 'aria-pressed': 'false'}, 'Pause');
  const error = h('p', {class: 'error', role: 'alert'});

  // Charts for callers with the metrics (or admin) role, the tail for those who may stream events.
  const charts = !ctx.can('stats') ? {} : {
    in: timeChart({id: 'chart-in', title: 'Events in per second, by type', unit: '/s'}),
    out: timeChart({id: 'chart-out', title: 'Deliveries out per second, by channel', unit: '/s'}),
    latency: timeChart({id: 'chart-latency', title: 'Routing latency p50 / p99', unit: 'ms'}),
    failures: timeChart({id: 'chart-failures', title: 'Failed attempts and dead letters per second', unit: '/s'}),
    hops: hopsPanel(),
  };
  const tail = ctx.can('stream') ? tailPanel({id: 'live-tail', title: 'Live tail',
    pattern: ''}) : null;

  mount(container,
    h('h1', {}, 'Live'),
    ctx.can('stats') ? h('div', {class: 'toolbar'},
      h('label', {for: 'live-window'}, 'Window'), windowSelect, pause, h('span', {class: 'spacer'}), replica, updated)
      : null,
    error,
    ctx.can('stats') ? h('div', {class: 'charts'}, charts.in.el, charts.out.el, charts.latency.el, charts.failures.el,
      charts.hops.el)
      : null,
    tail ? tail.el : null);

  let timer = null;
  let paused = false;
  let disposed = false;

  async function refresh() {
    if (disposed || paused || document.hidden || !ctx.can('stats')) return;
    try {
      const s = await get('/stats' + query({window: windowSelect.value}));
      error.textContent = '';
      replica.textContent = 'Replica ' + s.replica;
      updated.textContent = 'Updated ' + new Date().toLocaleTimeString();
      charts.in.update(s.times, s.series.in || {}, s.totals.in);
      charts.out.update(s.times, s.series.out || {}, s.totals.out);
      charts.latency.update(s.times, {p50: s.latency.p50, p99: s.latency.p99}, null);
      const failures = {};
      for (const [k, v] of Object.entries(s.series.failed || {})) failures['failed ' + k] = v;
      for (const [k, v] of Object.entries(s.series.deadLettered || {})) failures['dead-lettered ' + k] = v;
      const failureTotals = {};
      for (const [k, v] of Object.entries(s.totals.failed || {})) failureTotals['failed ' + k] = v;
      for (const [k, v] of Object.entries(s.totals.deadLettered || {})) failureTotals['dead-lettered ' + k] = v;
      charts.failures.update(s.times, failures, failureTotals);
      charts.hops.update(s.hops);
      container.dataset.routed = num(s.latency.count.reduce((a, b) => a + b, 0), 0);
    } catch (e) {
      error.textContent = 'Statistics unavailable: ' + e.message;
    }
  }

  function schedule() {
    clearInterval(timer);
    timer = setInterval(refresh, REFRESH_MS);
  }

  pause.addEventListener('click', () => {
    paused = !paused;
    pause.setAttribute('aria-pressed', String(paused));
    pause.textContent = paused ? 'Resume' : 'Pause';
    if (!paused) refresh();
  });
  windowSelect.addEventListener('change', refresh);
  const onResize = () => Object.values(charts).forEach(c => c.resize());
  window.addEventListener('resize', onResize);
  const onVisible = () => { if (!document.hidden) refresh(); };
  document.addEventListener('visibilitychange', onVisible);
  schedule();

  return {
    ready: refresh(),
    dispose() {
      disposed = true;
      clearInterval(timer);
      window.removeEventListener('resize', onResize);
      document.removeEventListener('visibilitychange', onVisible);
      Object.values(charts).forEach(c => c.destroy());
      if (tail) tail.dispose();
    },
  };
}
