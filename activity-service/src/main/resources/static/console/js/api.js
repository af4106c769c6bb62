// The one way the console talks to the service: the REST API under ../api/v1/, with the signed-in bearer token.

const KEY = 'activity.console.key';
const BASE = new URL('../api/v1/', document.baseURI);

/** The token the operator signed in with, kept in this tab's session storage only (never a URL or a cookie). */
export const session = {
  get key() { return sessionStorage.getItem(KEY); },
  get signedIn() { return sessionStorage.getItem(KEY) !== null; },
  set(key) { sessionStorage.setItem(KEY, key); },
  clear() { sessionStorage.removeItem(KEY); },
};

/** An answer other than 2xx. `problem` is the RFC 9457 body when there is one. */
export class ApiError extends Error {
  constructor(status, problem, path) {
    super(ApiError.describe(status, problem));
    this.status = status;
    this.problem = problem || {};
    this.path = path;
  }

  static describe(status, problem) {
    if (status === 401) return 'Your key or token was not accepted: sign in again.';
    if (status === 403) return 'Not allowed for your role.' + (problem && problem.detail ? ' ' + problem.detail : '');
    if (problem && problem.detail) return problem.detail;
    if (problem && problem.title) return problem.title;
    return 'The service answered ' + status + '.';
  }

  get field() { return this.problem.field; }
  get errors() { return this.problem.errors || []; }
}

/** Headers of every request. */
export function authHeaders(extra = {}) {
  const headers = {...extra};
  const key = session.key;
  if (key) headers['Authorization'] = 'Bearer ' + key;
  return headers;
}

/** The URL of an API path such as "/subscriptions?x=1". */
export function apiUrl(path) {
  return new URL(path.replace(/^\//, ''), BASE).toString();
}

/**
 * Calls the API. Resolves with the parsed JSON (or null for 204), rejects with ApiError. A 401 also tells the
 * console to ask for a key again.
 */
export async function api(method, path, body, {contentType = 'application/json', signal} = {}) {
  const init = {method, headers: authHeaders({'Accept': 'application/json, application/problem+json'}), signal,
    cache: 'no-store', credentials: 'omit'};
  if (body !== undefined) {
    init.headers['Content-Type'] = contentType;
    init.body = typeof body === 'string' ? body : JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(apiUrl(path), init);
  } catch (e) {
    if (e.name === 'AbortError') throw e;
    throw new ApiError(0, {detail: 'The service cannot be reached (' + e.message + ').'}, path);
  }
  const text = await res.text();
  let json = null;
  if (text) {
    try { json = JSON.parse(text); } catch { json = {detail: text.slice(0, 300)}; }
  }
  if (!res.ok) {
    const err = new ApiError(res.status, json, path);
    if (res.status === 401) window.dispatchEvent(new CustomEvent('console:unauthorized', {detail: err}));
    throw err;
  }
  return json;
}

export const get = (path, opts) => api('GET', path, undefined, opts);
export const post = (path, body, opts) => api('POST', path, body, opts);
export const put = (path, body, opts) => api('PUT', path, body, opts);
export const del = (path, opts) => api('DELETE', path, undefined, opts);

/** Query string from an object, skipping empty values. */
export function query(params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, v);
  const s = q.toString();
  return s ? '?' + s : '';
}

/** Line and column numbers named in a compiler message: "line 4: …", "at line 1 column 48", "[4,2]". */
export function linesIn(message) {
  const out = [];
  const re = /\bline\s+(\d+)(?:(?:,\s*|\s+)column\s+(\d+))?/ig;
  let m;
  while ((m = re.exec(message || '')) !== null) {
    out.push({line: Number(m[1]), column: m[2] ? Number(m[2]) : null});
  }
  return out;
}
