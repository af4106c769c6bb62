// Inbound channels the service listens on: list, add, remove.

import {del, get, post, query} from '../api.js';
import {clearErrors, confirmAction, field, h, showFieldErrors, table, time, toast} from '../dom.js';
import {listPage} from '../list.js';

export function render(container) {
  const input = (name, id, help) => field(name === 'uri' ? 'Channel URI' : name === 'defaultType' ? 'Default type'
    : 'Default source', h('input', {type: 'text', name, id, spellcheck: 'false'}), help);
  const formError = h('p', {class: 'error', role: 'alert'});
  const form = h('form', {class: 'form', id: 'channel-form', novalidate: true},
    input('uri', 'ch-uri', 'e.g. sqs:orders-in, jms:queue:orders, jms:topic:events, kafka:orders'),
    h('div', {class: 'row'},
      input('defaultType', 'ch-type', 'Type of messages that carry no CloudEvent (optional)'),
      input('defaultSource', 'ch-source', 'Their source (optional)')),
    formError,
    h('div', {class: 'actions'}, h('button', {type: 'submit', class: 'primary'}, 'Add channel')));

  form.addEventListener('submit', async e => {
    e.preventDefault();
    clearErrors(form);
    formError.textContent = '';
    const v = n => form.elements[n].value.trim() || null;
    try {
      const ch = await post('/channels', {uri: v('uri'), defaultType: v('defaultType'), defaultSource: v('defaultSource')});
      toast('Listening on ' + ch.uri);
      form.reset();
      page.reload();
    } catch (err) {
      const left = showFieldErrors(form, err.problem && err.problem.errors ? err.problem
        : {field: err.field, detail: err.message});
      formError.textContent = left.map(x => (x.field ? x.field + ': ' : '') + x.reason).join(' ');
    }
  });

  const page = listPage(container, {title: 'Inbound channels', bodyId: 'channels-list',
    layout: body => [
      h('section', {class: 'panel', 'aria-labelledby': 'ch-list'}, h('h2', {id: 'ch-list'}, 'Listening on'), body),
      h('section', {class: 'panel', 'aria-labelledby': 'ch-add'}, h('h2', {id: 'ch-add'}, 'Add a channel'), form)],
    load: async () => {
      const channels = await get('/channels');
      return table([
        {label: 'URI', value: c => h('code', {}, c.uri)},
        {label: 'Default type', value: c => c.defaultType || '–'},
        {label: 'Default source', value: c => c.defaultSource || '–'},
        {label: 'From', value: c => c.origin || ''},
        {label: 'Added', value: c => time(c.createdAt)},
        {label: 'Actions', value: c => c.origin === 'config' ? h('span', {class: 'muted'}, 'configured at start')
          : h('button', {type: 'button', class: 'danger', 'aria-label': 'Remove ' + c.uri, onclick: async () => {
            if (!confirmAction('Stop listening on ' + c.uri + '?')) return;
            try {
              await del('/channels' + query({uri: c.uri}));
              toast('Removed ' + c.uri);
              page.reload();
            } catch (err) { toast(err.message, {bad: true}); }
          }}, 'Remove')},
      ], channels, {caption: 'Inbound channels', empty: 'No inbound channels.'});
    }});
  return page;
}
