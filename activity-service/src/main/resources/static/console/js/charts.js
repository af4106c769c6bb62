// Time-series charts with uPlot (served by the service from its webjar). Each chart also has a small table of the
// latest values and window totals, so the numbers are readable without seeing the canvas.

import {h, mount, num} from './dom.js';

const PALETTE = ['#0b5cad', '#d1242f', '#1a7f37', '#8250df', '#bf8700', '#0a7ea4', '#cf4a8a', '#57606a', '#6e7781'];
const TOP = 6;

/**
 * A chart of several series over time.
 * @param {{id: string, title: string, unit: string}} options
 */
export function timeChart({id, title, unit}) {
  const canvas = h('div', {class: 'chart-canvas', id: id + '-canvas', role: 'img',
    'aria-label': title + ' (chart; the table below gives the numbers)'});
  const summary = h('div', {class: 'chart-summary', id: id + '-summary'});
  const el = h('figure', {class: 'chart panel', id}, h('figcaption', {}, title), canvas, summary);
  let plot = null;
  let names = [];

  function width() {
    return Math.max(240, canvas.clientWidth || el.clientWidth - 32 || 480);
  }

  /**
   * @param times epoch milliseconds
   * @param series {name: [values]} (nulls allowed)
   * @param totals {name: total in window} or null
   */
  function update(times, series, totals) {
    const ranked = Object.keys(series).sort((a, b) => sum(series[b]) - sum(series[a]));
    let shown = ranked.slice(0, TOP);
    const data = [times.map(t => t / 1000)];
    for (const name of shown) data.push(series[name]);
    if (ranked.length > TOP) {
      const rest = ranked.slice(TOP);
      data.push(times.map((_, i) => rest.reduce((s, n) => s + (series[n][i] || 0), 0)));
      shown = [...shown, `${rest.length} more`];
    }
    if (!plot || shown.join('\u0000') !== names.join('\u0000')) {
      names = shown;
      if (plot) plot.destroy();
      canvas.replaceChildren();
      plot = new window.uPlot({
        width: width(), height: 200,
        scales: {x: {time: true}, y: {range: (u, min, max) => [0, Math.max(1, max * 1.1)]}},
        axes: [{}, {label: unit, size: 60, values: (u, vals) => vals.map(v => num(v, 2))}],
        legend: {live: false},
        series: [{}, ...shown.map((n, i) => ({label: n, stroke: PALETTE[i % PALETTE.length], width: 2,
          spanGaps: false, value: (u, v) => v === null || v === undefined ? '–' : num(v, 2)}))],
      }, data.length > 1 ? data : [data[0], times.map(() => null)], canvas);
      if (data.length === 1) plot.setSeries(1, {show: false});
    } else {
      plot.setData(data);
    }
    renderSummary(series, totals, ranked);
  }

  function renderSummary(series, totals, ranked) {
    if (!ranked.length) {
      mount(summary, h('p', {class: 'muted'}, 'Nothing in this window.'));
      return;
    }
    mount(summary, h('table', {},
      h('thead', {}, h('tr', {}, h('th', {scope: 'col'}, 'Series'), h('th', {scope: 'col', class: 'num'}, 'Latest'),
        totals ? h('th', {scope: 'col', class: 'num'}, 'In window') : null)),
      h('tbody', {}, ranked.slice(0, 10).map(name => h('tr', {'data-series': name},
        h('td', {}, h('code', {}, name)),
        h('td', {class: 'num'}, num(last(series[name]), 2) + ' ' + unit),
        totals ? h('td', {class: 'num', 'data-total': totals[name] || 0}, num(totals[name] || 0, 0)) : null)))));
  }

  function resize() {
    if (plot) plot.setSize({width: width(), height: 200});
  }

  return {el, update, resize, destroy: () => plot && plot.destroy()};
}

function sum(values) {
  return values.reduce((s, v) => s + (v || 0), 0);
}

function last(values) {
  for (let i = values.length - 1; i >= 0; i--) if (values[i] !== null && values[i] !== undefined) return values[i];
  return null;
}
