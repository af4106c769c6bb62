// Dead letters per subscription, with redrive (back into the subscription's retry cycle).

import {get, post, query} from '../api.js';
import {h, mount, pretty, time, toast, confirmAction} from '../dom.js';
import {listPage} from '../list.js';

export function render(container, ctx, args) {
  const select = h('select', {id: 'dl-subscription', name: 'subscription'},
    h('option', {value: ''}, '(choose a subscription)'));
  const summary = h('div', {id: 'dl-summary'});
  const listEl = h('div', {id: 'dl-list'});
  const status = h('p', {role: 'status', id: 'dl-status', class: 'muted'});
  const selectedId = args[0] || '';
  let items = [];
  let cursor = null;

  select.addEventListener('change', () => {
    location.hash = '#/dead-letters' + (select.value ? '/' + encodeURIComponent(select.value) : '');
  });

  async function loadSubscriptions() {
    const subs = await get('/subscriptions');
    for (const s of subs) select.append(h('option', {value: s.id, selected: s.id === selectedId}, s.name));
  }

  async function loadSummary() {
    try {
      const d = await get('/subscriptions/' + encodeURIComponent(selectedId) + '/deliveries');
      mount(summary, h('p', {},
        h('span', {class: 'badge'}, d.pending + ' pending'), ' ',
        h('span', {class: d.deadLetters ? 'badge bad' : 'badge ok', id: 'dl-count'}, d.deadLetters + ' dead letters'),
        d.lastError ? h('span', {class: 'muted'}, ' Last error: ' + d.lastError) : null));
    } catch (e) {
      mount(summary, h('p', {class: 'error'}, e.message));
    }
  }

  async function loadPage(reset) {
    if (reset) { items = []; cursor = null; }
    const page = await get('/dead-letters' + query({subscription: selectedId, cursor, limit: 50}));
    items = items.concat(page.items);
    cursor = page.nextCursor;
    renderList();
  }

  function renderList() {
    if (!items.length) {
      mount(listEl, h('p', {class: 'muted', id: 'dl-empty'}, 'No dead letters for this subscription.'));
      return;
    }
    const checks = items.map(d => h('input', {type: 'checkbox', value: d.id, id: 'dl-' + d.id,
      'aria-label': 'Select dead letter of event ' + (d.event && d.event.id)}));
    const all = h('input', {type: 'checkbox', id: 'dl-all', 'aria-label': 'Select all shown'});
    all.addEventListener('change', () => checks.forEach(c => { c.checked = all.checked; }));
    const redriveSelected = h('button', {type: 'button', class: 'primary', id: 'dl-redrive-selected'},
      'Redrive selected');
    const redriveAll = h('button', {type: 'button', id: 'dl-redrive-all'}, 'Redrive all (oldest first)');
    redriveSelected.addEventListener('click', () => {
      const ids = checks.filter(c => c.checked).map(c => c.value);
      if (!ids.length) { status.textContent = 'Select dead letters first.'; return; }
      redrive(ids);
    });
    redriveAll.addEventListener('click', () => {
      if (confirmAction('Redrive the oldest dead letters of this subscription (up to its retry.maxPending)?')) redrive(null);
    });
    mount(listEl,
      h('div', {class: 'actions'}, redriveSelected, redriveAll),
      h('div', {class: 'table-wrap'}, h('table', {},
        h('caption', {class: 'visually-hidden'}, 'Dead letters, oldest first'),
        h('thead', {}, h('tr', {}, h('th', {scope: 'col'}, all), h('th', {scope: 'col'}, 'Event'),
          h('th', {scope: 'col'}, 'Reason'), h('th', {scope: 'col', class: 'num'}, 'Attempts'),
          h('th', {scope: 'col'}, 'Dead-lettered'))),
        h('tbody', {}, items.map((d, i) => h('tr', {'data-dead-letter': d.id, 'data-event-id': d.event && d.event.id},
          h('td', {}, checks[i]),
          h('td', {}, h('code', {}, d.event ? d.event.type : '?'), h('br'), h('span', {class: 'muted'}, 'id ' +
            (d.event ? d.event.id : '?')), h('details', {}, h('summary', {}, 'Event'), h('pre', {}, pretty(d.event)))),
          h('td', {}, d.reason), h('td', {class: 'num'}, String(d.attempts)), h('td', {}, time(d.deadLetteredAt))))))),
      cursor ? h('button', {type: 'button', onclick: () => loadPage(false)}, 'Load more') : null);
  }

  async function redrive(ids) {
    try {
      const r = await post('/dead-letters/redrive', {subscription: selectedId, ids: ids || undefined});
      status.textContent = `Redriven: ${r.redriven}.`;
      toast(`Redrove ${r.redriven} dead letter${r.redriven === 1 ? '' : 's'}`);
      await Promise.all([loadSummary(), loadPage(true)]);
    } catch (e) {
      status.textContent = '';
      toast(e.message, {bad: true});
    }
  }

  return listPage(container, {title: 'Dead letters', body: listEl,
    toolbar: [h('label', {for: 'dl-subscription'}, 'Subscription'), select],
    layout: (body, toolbar) => [h('p', {class: 'help'}, 'Deliveries given up after their retries. Redrive moves ' +
      'them back into the subscription\'s retry cycle with a fresh attempt count.'), toolbar, summary, status, body],
    load: async () => {
      await loadSubscriptions();
      if (!selectedId) return h('p', {class: 'muted'}, 'Choose a subscription to see its dead letters.');
      await Promise.all([loadSummary(), loadPage(true)]);
      return undefined;
    }});
}
