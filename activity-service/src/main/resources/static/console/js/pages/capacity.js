// Capacity: the utilisation law over this replica's recent traffic (GET /api/v1/capacity): CPU use, the demand per
// event, and how many more events per second each path takes before the CPU reaches the target. Refreshes every
// five seconds.

import {get} from '../api.js';
import {h, table} from '../dom.js';
import {listPage} from '../list.js';

const pct = v => v === null || v === undefined ? '–' : (100 * v).toFixed(1) + ' %';
const num = (v, digits = 1) => v === null || v === undefined ? '–' : Number(v).toFixed(digits);
const BOTTLENECK = {
  'service-cpu': 'the service’s CPU',
  'host-cpu': 'the host’s CPU (other processes, fixed plus per event, use more of it than the service)',
  unknown: 'unknown (no traffic or no CPU measurement in the window)',
};

// The other processes' CPU fitted against the service's event rate: a cores plus b µs per event.
const otherLoad = c => c.otherCpuCores === null || c.otherCpuCores === undefined ? '–'
  : num(c.otherCpuCores, 2) + ' cores + ' + num(c.otherCpuMicrosPerEvent) + ' µs per event '
    + (c.otherFitSamples > 0 ? '(fitted over ' + c.otherFitSamples + ' samples)' : '(taken as fixed: too few samples or a steady rate)');

export function render(container) {
  const page = listPage(container, {title: 'Capacity', bodyId: 'capacity-view',
    load: async () => {
      const c = await get('/capacity');
      return [
        h('section', {class: 'panel', 'aria-labelledby': 'cap-now'},
          h('h2', {id: 'cap-now'}, 'This replica over the last ' + String(c.window).replace(/^PT/, '').toLowerCase()),
          c.warning ? h('p', {class: 'notice', role: 'alert', id: 'cap-warning'},
            'Headroom is low: ' + pct(c.headroomShare) + ' of the predicted highest rate is left.') : null,
          h('dl', {},
            h('dt', {}, 'CPU used by the service'), h('dd', {id: 'cap-cpu'}, pct(c.cpuUtilisation) + ' of ' + c.cores + ' cores'),
            h('dt', {}, 'Host CPU load'), h('dd', {}, pct(c.hostCpuUtilisation)),
            h('dt', {}, 'Other processes on the host'), h('dd', {id: 'cap-other'}, otherLoad(c)),
            h('dt', {}, 'Target utilisation'), h('dd', {}, pct(c.targetUtilisation)),
            h('dt', {}, 'Events in per second'), h('dd', {id: 'cap-rate'}, num(c.eventsPerSecond)),
            h('dt', {}, 'CPU µs per event'), h('dd', {}, num(c.cpuMicrosPerEvent)),
            h('dt', {}, 'Predicted highest rate at this mix'), h('dd', {id: 'cap-max'}, num(c.maxEventsPerSecond) + ' events/s'),
            h('dt', {}, 'Headroom'), h('dd', {}, pct(c.headroomShare)),
            h('dt', {}, 'Runs out first'), h('dd', {id: 'cap-bottleneck'}, BOTTLENECK[c.bottleneck] || c.bottleneck))),
        h('section', {class: 'panel', 'aria-labelledby': 'cap-paths'},
          h('h2', {id: 'cap-paths'}, 'Paths'),
          table([
            {label: 'Inbound', value: p => h('code', {}, p.inbound)},
            {label: 'Outbound', value: p => h('code', {}, p.outbound)},
            {label: 'Events/s', num: true, value: p => num(p.eventsPerSecond)},
            {label: 'CPU µs/event', num: true, value: p => num(p.cpuMicrosPerEvent)},
            {label: 'Headroom events/s', num: true, value: p => num(p.headroomEventsPerSecond)},
            {label: 'Bottleneck', value: p => p.bottleneck},
          ], c.paths, {caption: 'Paths: inbound channel kind × target scheme',
            rowAttrs: p => ({'data-path': p.inbound + '>' + p.outbound}),
            empty: 'No traffic in the window yet.'}),
          h('p', {class: 'help'}, 'The demand is the service’s CPU time per delivered event at the current mix; '
            + 'brokers and remote endpoints are not measured and can saturate first.'))];
    }});
  const timer = setInterval(page.reload, 5000);
  return {...page, dispose: () => clearInterval(timer)};
}
