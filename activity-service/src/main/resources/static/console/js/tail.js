// Live tail of events matching a pattern: GET /api/v1/events/stream read with fetch() (EventSource cannot send an
// Authorization header, and the token must not go into a URL), parsed as server-sent events.

import {apiUrl, authHeaders, ApiError, query} from './api.js';
import {h, pretty, time, announce} from './dom.js';
import {codeEditor, jsonError} from './editor.js';

/** Events seen by any tail in this tab, newest first: the pattern tester can pick from them. */
export const recentEvents = [];
const RECENT_MAX = 50;

/**
 * Opens a stream; calls onEvent(name, data) per SSE event. Returns {close()}; `done` resolves when it ends.
 * Rejects (through onError) with ApiError for 4xx/5xx answers.
 */
export function openStream({pattern, filter}, {onEvent, onError, onEnd}) {
  const controller = new AbortController();
  const done = (async () => {
    let res;
    try {
      res = await fetch(apiUrl('/events/stream' + query({pattern, filter})), {
        headers: authHeaders({'Accept': 'text/event-stream'}), signal: controller.signal, cache: 'no-store',
        credentials: 'omit'});
      if (!res.ok) {
        let problem = null;
        try { problem = await res.json(); } catch { /* not JSON */ }
        const err = new ApiError(res.status, problem, '/events/stream');
        if (res.status === 401) window.dispatchEvent(new CustomEvent('console:unauthorized', {detail: err}));
        throw err;
      }
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const {value, done: finished} = await reader.read();
        if (finished) break;
        buffer += value;
        let cut;
        while ((cut = buffer.search(/\r?\n\r?\n/)) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut).replace(/^\r?\n\r?\n/, '');
          let name = 'message';
          const data = [];
          for (const line of block.split(/\r?\n/)) {
            if (line.startsWith(':')) continue;
            const colon = line.indexOf(':');
            const key = colon < 0 ? line : line.slice(0, colon);
            const val = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
            if (key === 'event') name = val;
            else if (key === 'data') data.push(val);
          }
          if (data.length) onEvent(name, data.join('\n'));
        }
      }
      onEnd && onEnd();
    } catch (e) {
      if (e.name !== 'AbortError') onError && onError(e);
    }
  })();
  return {close: () => controller.abort(), done};
}

/**
 * A tail panel: pattern editor (optional), start/stop, dropped count, list of events. Reconnects after an idle
 * close while started. Call dispose() when leaving the page.
 */
export function tailPanel({title = 'Live tail', pattern = '', filter = '', editable = true, max = 200,
                           autostart = false, id = 'tail'} = {}) {
  const list = h('ol', {class: 'tail', id: id + '-events', 'aria-label': 'Events received, newest first',
    reversed: true});
  const status = h('p', {class: 'muted', id: id + '-status', role: 'status'}, 'Stopped.');
  const editor = editable ? codeEditor({label: 'Pattern', name: 'pattern', value: pattern, rows: 3,
    help: 'An Event Ruler pattern, as a subscription\'s; empty for every event you may see.'}) : null;
  const filterInput = editable ? h('input', {type: 'text', name: 'filter', id: id + '-filter', value: filter,
    spellcheck: 'false'}) : null;
  const startButton = h('button', {type: 'button', class: 'primary', id: id + '-start'}, 'Start');
  const stopButton = h('button', {type: 'button', id: id + '-stop', disabled: true}, 'Stop');
  const clearButton = h('button', {type: 'button', id: id + '-clear'}, 'Clear');
  let stream = null;
  let running = false;
  let received = 0;
  let dropped = 0;

  function setStatus(text) {
    status.textContent = text;
  }

  function add(json) {
    let event;
    try { event = JSON.parse(json); } catch { return; }
    received++;
    recentEvents.unshift(event);
    if (recentEvents.length > RECENT_MAX) recentEvents.length = RECENT_MAX;
    const item = h('li', {'data-id': event.id, 'data-type': event.type},
      h('div', {class: 'meta'}, h('code', {}, event.type), h('span', {}, 'id ' + event.id),
        h('span', {class: 'muted'}, event.source), h('span', {class: 'muted'}, time(event.time))),
      h('details', {}, h('summary', {}, 'Event'), h('pre', {}, pretty(event))));
    list.prepend(item);
    while (list.children.length > max) list.lastChild.remove();
    setStatus(`Streaming: ${received} received` + (dropped ? `, ${dropped} dropped (reading too slowly)` : '') + '.');
  }

  function start() {
    if (running) return;
    const p = editor ? editor.value.trim() : pattern;
    if (editor && p) {
      const err = jsonError(p);
      if (err) { editor.setErrors([err]); return; }
    }
    running = true;
    startButton.disabled = true;
    stopButton.disabled = false;
    connect(p, filterInput ? filterInput.value.trim() : filter);
  }

  function connect(p, f) {
    setStatus('Connecting…');
    stream = openStream({pattern: p, filter: f}, {
      onEvent(name, data) {
        if (name === 'open') {
          setStatus(`Streaming (buffer ${JSON.parse(data).bufferSize} events): ${received} received.`);
          announce('Live tail started');
          list.dataset.open = 'true';
        } else if (name === 'cloudevent') {
          add(data);
        } else if (name === 'dropped') {
          dropped = JSON.parse(data).dropped;
          setStatus(`Streaming: ${received} received, ${dropped} dropped (reading too slowly).`);
        }
      },
      onError(e) {
        running = false;
        startButton.disabled = false;
        stopButton.disabled = true;
        delete list.dataset.open;
        if (e instanceof ApiError && e.status === 400 && editor) {
          editor.setErrors([{line: null, message: e.message}]);
          setStatus('Stopped: the pattern or filter was refused.');
        } else {
          setStatus('Stopped: ' + e.message);
        }
      },
      onEnd() {
        delete list.dataset.open;
        if (running && !document.hidden) connect(p, f); // idle close or server restart: reconnect
        else if (running) setStatus('Paused while the page is hidden.');
      },
    });
  }

  function stop() {
    running = false;
    if (stream) stream.close();
    stream = null;
    delete list.dataset.open;
    startButton.disabled = false;
    stopButton.disabled = true;
    setStatus(`Stopped: ${received} received` + (dropped ? `, ${dropped} dropped` : '') + '.');
  }

  startButton.addEventListener('click', start);
  stopButton.addEventListener('click', stop);
  clearButton.addEventListener('click', () => { list.replaceChildren(); received = 0; dropped = 0; });

  const el = h('section', {class: 'panel', 'aria-labelledby': id + '-title', id},
    h('h2', {id: id + '-title'}, title),
    editor ? editor.el : h('p', {class: 'help'}, 'Pattern: ', h('code', {}, pattern || '(every event)')),
    filterInput ? h('div', {class: 'field'}, h('label', {for: id + '-filter'}, 'CESQL filter (optional)'),
      filterInput) : null,
    h('div', {class: 'actions'}, startButton, stopButton, clearButton),
    status, list);
  if (autostart) queueMicrotask(start);
  return {el, start, stop, dispose: stop, set pattern(v) { if (editor) editor.value = v; else pattern = v; }};
}

