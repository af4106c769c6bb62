// Cluster view: replicas, the configuration version each runs, what each owns. Refreshes every five seconds.

import {get} from '../api.js';
import {h, pretty, table, time} from '../dom.js';
import {listPage} from '../list.js';

export function render(container) {
  const page = listPage(container, {title: 'Cluster', bodyId: 'cluster-view',
    load: async () => {
      const c = await get('/cluster');
      return [
        h('section', {class: 'panel', 'aria-labelledby': 'cl-self'},
          h('h2', {id: 'cl-self'}, 'This replica'),
          h('dl', {},
            h('dt', {}, 'Replica'), h('dd', {}, h('code', {}, c.self.replicaId)),
            h('dt', {}, 'Configuration version'), h('dd', {}, c.self.configVersion + ' of ' + c.configVersion),
            h('dt', {}, 'Mode'), h('dd', {id: 'cl-mode'}, c.mode === 'cluster'
              ? 'cluster (activity.cluster.enabled=true: detectors and rule sets fed through internal channels)'
              : 'single node (activity.cluster.enabled=false: one replica per database)')),
          c.self.owns && c.self.owns.length ? h('details', {}, h('summary', {}, 'Owns'), h('pre', {}, pretty(c.self.owns)))
            : null),
        h('section', {class: 'panel', 'aria-labelledby': 'cl-replicas'},
          h('h2', {id: 'cl-replicas'}, 'Replicas seen in the last hour'),
          table([
            {label: 'Replica', value: r => h('code', {}, r.replicaId)},
            {label: 'State', value: r => h('span', {class: r.live ? 'badge ok' : 'badge bad'}, r.live ? 'live' : 'gone')},
            {label: 'Mode', value: r => r.mode},
            {label: 'Address', value: r => r.address || '–'},
            {label: 'Config version', num: true, value: r => String(r.configVersion)},
            {label: 'Started', value: r => time(r.startedAt)},
            {label: 'Last seen', value: r => time(r.lastSeen)},
          ], c.replicas, {caption: 'Replicas', empty: 'No heartbeats recorded yet.'}))];
    }});
  const timer = setInterval(page.reload, 5000);
  return {...page, dispose: () => clearInterval(timer)};
}
