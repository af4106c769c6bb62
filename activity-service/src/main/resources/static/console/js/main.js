// The console's shell: sign-in, the identity's capabilities, navigation (hash routes) and page lifecycle.

import {session, ApiError} from './api.js';
import {discover} from './identity.js';
import {h, mount, toast} from './dom.js';
import * as live from './pages/live.js';
import * as types from './pages/types.js';
import * as subscriptions from './pages/subscriptions.js';
import * as deadLetters from './pages/deadletters.js';
import * as detectors from './pages/detectors.js';
import * as rules from './pages/rules.js';
import * as channels from './pages/channels.js';
import * as archives from './pages/archives.js';
import * as cluster from './pages/cluster.js';
import * as capacity from './pages/capacity.js';

/** Route name -> page module and the capability it needs. */
const PAGES = {
  live: {module: live, cap: ['stats', 'stream'], title: 'Live'},
  types: {module: types, cap: 'types', title: 'Event types'},
  subscriptions: {module: subscriptions, cap: 'subscriptions', title: 'Subscriptions'},
  'dead-letters': {module: deadLetters, cap: 'deadLetters', title: 'Dead letters'},
  detectors: {module: detectors, cap: 'detectors', title: 'Detectors'},
  rules: {module: rules, cap: 'rules', title: 'Rules'},
  channels: {module: channels, cap: 'channels', title: 'Channels'},
  archives: {module: archives, cap: 'archives', title: 'Archives'},
  cluster: {module: cluster, cap: 'cluster', title: 'Cluster'},
  capacity: {module: capacity, cap: 'stats', title: 'Capacity'},
};

const ctx = {identity: null, can: name => !!(ctx.identity && ctx.identity.can[name])};

/** Whether the identity may use a page: it needs one of the page's capabilities. */
const allowed = caps => [].concat(caps).some(c => ctx.can(c));
let current = null;

const el = id => document.getElementById(id);

function showSignIn(message) {
  disposeCurrent();
  mount(el('page'));
  el('nav').hidden = true;
  el('sign-out').hidden = true;
  el('identity').textContent = '';
  el('sign-in').hidden = false;
  el('sign-in-error').textContent = message || '';
  document.title = 'Sign in · Activity Service console';
  el('sign-in-key').focus();
}

async function signIn(key) {
  session.set(key);
  try {
    ctx.identity = await discover();
  } catch (e) {
    session.clear();
    showSignIn(e instanceof ApiError && e.status === 401 ? 'That key or token was not accepted.' : e.message);
    return;
  }
  el('sign-in').hidden = true;
  el('sign-in-key').value = '';
  el('sign-out').hidden = false;
  el('identity').textContent = ctx.identity.who + ' · ' + (ctx.identity.roles.join(', ') || 'no role');
  el('identity').title = 'Event types: ' + (ctx.identity.eventTypes.join(', ') || 'none');
  for (const li of el('nav').querySelectorAll('li[data-cap]')) li.hidden = !allowed(li.dataset.cap.split(' '));
  el('nav').hidden = false;
  route();
}

function firstAllowed() {
  return Object.keys(PAGES).find(name => allowed(PAGES[name].cap));
}

function disposeCurrent() {
  if (current && current.dispose) {
    try { current.dispose(); } catch (e) { console.warn(e); }
  }
  current = null;
}

/** Renders the page named by the hash: #/name/arg... */
function route() {
  if (!ctx.identity) return;
  const parts = location.hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent).filter(Boolean);
  let name = parts[0];
  if (!name || !PAGES[name]) {
    const first = firstAllowed();
    if (!first) {
      mount(el('page'), h('h1', {tabindex: -1}, 'Nothing to show'),
        h('p', {}, 'This identity may not use any part of the console.'));
      return;
    }
    location.replace('#/' + first);
    return;
  }
  const page = PAGES[name];
  for (const a of el('nav').querySelectorAll('a')) {
    if (a.getAttribute('href') === '#/' + name) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  disposeCurrent();
  const container = el('page');
  mount(container);
  document.title = page.title + ' · Activity Service console';
  if (!allowed(page.cap)) {
    mount(container, h('h1', {tabindex: -1}, page.title),
      h('p', {class: 'notice', role: 'alert'}, 'Not allowed for your role.'));
    return;
  }
  const handle = page.module.render(container, ctx, parts.slice(1)) || {};
  current = handle;
  // Move focus to the page heading, so keyboard and screen-reader users start at the new page.
  const focus = () => {
    const heading = container.querySelector('h1');
    if (heading) {
      heading.setAttribute('tabindex', '-1');
      heading.focus({preventScroll: true});
    }
  };
  Promise.resolve(handle.ready).finally(focus);
}

window.addEventListener('hashchange', route);
window.addEventListener('console:unauthorized', () => {
  if (ctx.identity) {
    ctx.identity = null;
    session.clear();
    showSignIn('Your key or token is no longer accepted: sign in again.');
  }
});
window.addEventListener('console:navigate', e => { location.hash = e.detail; });

el('sign-in-form').addEventListener('submit', e => {
  e.preventDefault();
  el('sign-in-error').textContent = '';
  signIn(el('sign-in-key').value.trim());
});
el('sign-out').addEventListener('click', () => {
  ctx.identity = null;
  session.clear();
  toast('Signed out.');
  showSignIn();
});

window.addEventListener('error', e => toast('Console error: ' + e.message, {bad: true}));
window.addEventListener('unhandledrejection', e => {
  const reason = e.reason;
  if (reason instanceof ApiError && reason.status === 401) return;
  toast(reason && reason.message ? reason.message : String(reason), {bad: true});
});

if (session.signedIn) signIn(session.key); else showSignIn();
