// What the signed-in identity may use: GET /api/v1/whoami names its roles and event-type scope, and each role maps
// to the console capabilities the service's endpoint table grants it (README, "Security"; EndpointRoles).

import {get} from './api.js';

/** Capabilities of each role, as EndpointRoles grants them. */
const ROLE_CAPS = {
  admin: ['types', 'typesWrite', 'subscriptions', 'deadLetters', 'detectors', 'rules', 'channels', 'cluster', 'stats',
    'publish', 'patternTest', 'stream', 'archives'],
  author: ['types', 'typesWrite', 'detectors', 'rules', 'patternTest'],
  subscriber: ['types', 'subscriptions', 'deadLetters', 'patternTest', 'stream'],
  publisher: ['types', 'publish', 'patternTest'],
  metrics: ['cluster', 'stats'],
};

/**
 * The identity: {who, roles, eventTypes, can: {types: true, ...}}. Rejects with ApiError(401) when the key or token
 * is not accepted.
 */
export async function discover() {
  const me = await get('/whoami');
  const can = {};
  for (const role of me.roles || []) for (const c of ROLE_CAPS[String(role).toLowerCase()] || []) can[c] = true;
  return {who: me.id, roles: me.roles || [], eventTypes: me.eventTypes || [], can};
}
