// What the signed-in identity may use. The console asks the API rather than guessing from names: with
// GET /api/v1/whoami (roles) it maps roles to capabilities; without it, it probes each area with a harmless
// request and reads 403 as "not for this role". Adding whoami on the server is the one change needed.

import {ApiError, get, post} from './api.js';

/** Capabilities of each role, as the service's endpoint table grants them (README, "Security"). */
const ROLE_CAPS = {
  admin: ['types', 'typesWrite', 'subscriptions', 'deadLetters', 'detectors', 'rules', 'channels', 'cluster', 'stats',
    'publish', 'patternTest', 'stream', 'archives'],
  author: ['types', 'typesWrite', 'detectors', 'rules', 'patternTest', 'stream'],
  subscriber: ['types', 'subscriptions', 'deadLetters', 'patternTest', 'stream'],
  publisher: ['types', 'publish', 'patternTest'],
  metrics: ['cluster', 'stats'],
};

const ALL = ['types', 'typesWrite', 'subscriptions', 'deadLetters', 'detectors', 'rules', 'channels', 'cluster',
  'stats', 'publish', 'patternTest', 'stream', 'archives'];

/** Read probes: GET answers 2xx = allowed, 403 = not for this role, 404 = not on this service. */
const PROBES = {
  types: () => get('/event-types'),
  subscriptions: () => get('/subscriptions'),
  deadLetters: () => get('/dead-letters?limit=1'),
  detectors: () => get('/detectors'),
  rules: () => get('/rules'),
  channels: () => get('/channels'),
  cluster: () => get('/cluster'),
  stats: () => get('/stats?window=10s&series=in'),
  archives: () => get('/archives'),
  // Writes probed with bodies the service refuses (400) after authorisation, so nothing changes.
  publish: () => post('/events', '[]', {contentType: 'application/cloudevents-batch+json'}),
  patternTest: () => post('/patterns/test', {}),
};

/**
 * The identity's capabilities: {who, roles, can: {types: true, ...}, unavailable: {archives: true}}.
 * Rejects with ApiError(401) when the key is not accepted anywhere.
 */
export async function discover() {
  try {
    const me = await get('/whoami');
    if (me && Array.isArray(me.roles)) return fromRoles(me);
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) throw e;
    // No whoami on this service (404), or not allowed to ask (403): probe instead.
  }
  return probe();
}

function fromRoles(me) {
  const can = {};
  for (const role of me.roles) for (const c of ROLE_CAPS[String(role).toLowerCase()] || []) can[c] = true;
  return {who: me.id || me.name || 'signed in', roles: me.roles, can, unavailable: {}};
}

async function probe() {
  const names = Object.keys(PROBES);
  const results = await Promise.allSettled(names.map(n => PROBES[n]()));
  const can = {};
  const unavailable = {};
  let unauthorized = 0;
  results.forEach((r, i) => {
    const name = names[i];
    if (r.status === 'fulfilled') { can[name] = true; return; }
    const status = r.reason instanceof ApiError ? r.reason.status : 0;
    if (status === 401) unauthorized++;
    else if (status === 404 || status === 405) unavailable[name] = true;
    else if (status === 400 || status === 413 || status === 415) can[name] = true; // refused after authorisation
  });
  if (unauthorized === names.length) throw new ApiError(401, null, '/');
  // Streams are authorised per event type: whoever may read event types may open one.
  can.stream = !!can.types;
  if (unavailable.archives) can.archives = true; // the page says "not available"
  const allowed = ALL.filter(c => can[c]);
  return {who: allowed.length === ALL.length ? 'full access' : 'limited access', roles: null, can, unavailable};
}
