// Event types: search, schema, a sample event (from the schema) to test patterns with or to publish.

import {get, post, query} from '../api.js';
import {h, mount, pretty, showError, table, time, toast} from '../dom.js';
import {codeEditor, jsonError} from '../editor.js';
import {listPage} from '../list.js';
import {sampleEvent} from '../sample.js';
import {handoff} from '../state.js';

export function render(container, ctx, args) {
  if (args[0]) return detail(container, ctx, args[0]);
  const search = h('input', {type: 'search', id: 'types-q', name: 'q', placeholder: 'name prefix or description text'});
  let seq = 0;
  let debounce = null;
  search.addEventListener('input', () => { clearTimeout(debounce); debounce = setTimeout(page.reload, 250); });
  const page = listPage(container, {title: 'Event types', bodyId: 'types-list',
    layout: results => [
      h('form', {class: 'toolbar', role: 'search', onsubmit: e => { e.preventDefault(); page.reload(); }},
        h('label', {for: 'types-q'}, 'Search'), search, h('button', {type: 'submit'}, 'Search')),
      results],
    load: async () => {
      const mine = ++seq;
      const types = await get('/event-types' + query({q: search.value.trim()}));
      if (mine !== seq) return undefined;
      return table([
        {label: 'Type', value: t => h('a', {href: '#/types/' + encodeURIComponent(t.type)}, t.type)},
        {label: 'Description', value: t => t.description || ''},
        {label: 'Owner', value: t => t.owner || ''},
        {label: 'Version', num: true, value: t => t.version},
        {label: 'Updated', value: t => time(t.updatedAt)},
      ], types, {caption: 'Registered event types', empty: search.value ? 'No type matches.' : 'No types registered.'});
    }});
  return page;
}

function detail(container, ctx, name) {
  const body = h('div');
  mount(container, h('p', {}, h('a', {href: '#/types'}, '← Event types')), h('h1', {}, name), body);

  async function load() {
    let type;
    try {
      type = await get('/event-types/' + encodeURIComponent(name));
    } catch (e) {
      showError(body, e);
      return;
    }
    const sample = codeEditor({label: 'Sample event', name: 'event', value: pretty(sampleEvent(type)), rows: 14,
      help: 'Built from the schema; edit it freely.'});
    const result = h('p', {role: 'status', id: 'publish-result'});
    const testButton = h('button', {type: 'button', class: 'primary', id: 'type-test-pattern', onclick: () => {
      const err = jsonError(sample.value);
      if (err) { sample.setErrors([err]); return; }
      handoff.event = JSON.parse(sample.value);
      location.hash = '#/subscriptions/new';
    }}, 'Test a pattern with this event');
    const publishButton = ctx.can('publish') ? h('button', {type: 'button', id: 'type-publish', onclick: async () => {
      const err = jsonError(sample.value);
      if (err) { sample.setErrors([err]); return; }
      const event = JSON.parse(sample.value);
      event.id = 'console-' + Date.now().toString(36) + '-' + Math.random().toString(36).slice(2, 6);
      try {
        await post('/events', event, {contentType: 'application/cloudevents+json'});
        result.textContent = 'Published event ' + event.id + '.';
        toast('Published ' + event.id);
      } catch (e) {
        result.textContent = '';
        sample.setErrors([{line: null, message: (e.field ? e.field + ': ' : '') + e.message}]);
      }
    }}, 'Publish it') : null;

    mount(body,
      h('div', {class: 'grid2'},
        h('section', {class: 'panel', 'aria-labelledby': 'type-about'},
          h('h2', {id: 'type-about'}, 'About'),
          h('dl', {},
            h('dt', {}, 'Description'), h('dd', {}, type.description || '–'),
            h('dt', {}, 'Owner'), h('dd', {}, type.owner || '–'),
            h('dt', {}, 'Version'), h('dd', {}, String(type.version)),
            h('dt', {}, 'Updated'), h('dd', {}, time(type.updatedAt))),
          h('h2', {}, 'Schema of data'),
          type.schema ? h('pre', {id: 'type-schema', tabindex: 0}, pretty(type.schema))
            : h('p', {class: 'muted'}, 'No schema: any data is accepted.')),
        h('section', {class: 'panel', 'aria-labelledby': 'type-sample'},
          h('h2', {id: 'type-sample'}, 'Sample event'),
          sample.el,
          h('div', {class: 'actions'}, testButton, publishButton),
          result)));
  }
  return {ready: load()};
}
