/* The session API (docs/sessions.md, "The session API"): one JSON call at a
   time, each with a deadline, so a request lost on a bad connection fails
   instead of hanging the page. */

import { boot, state, t } from './page.js';

/** How long a call may take before it counts as lost: longer than the
    server's own deadlines (a model's answer, `llm_timeout_seconds`, 20 s by
    default), and generous for a recording chunk on a slow upload. */
export const CALL_TIMEOUT_MS = 45000;
export const UPLOAD_TIMEOUT_MS = 90000;

export class ApiError extends Error {
  constructor(status, code, message, retryAfter) {
    super(message || code || String(status));
    this.status = status; // 0: no answer (network, or past the deadline)
    this.code = code || '';
    this.serverMessage = message || ''; // what the server said, when it said something
    this.retryAfter = retryAfter || 0; // seconds, when a 429 said so
  }
}

/** One call to the session API. JSON in and out; a Blob is sent as raw bytes of `contentType`. */
export async function call(method, path, body, contentType, session = state.session, timeoutMs = CALL_TIMEOUT_MS) {
  const headers = {};
  if (session) headers.Authorization = 'Bearer ' + session.token;
  let payload;
  if (body instanceof Blob) {
    payload = body;
    headers['Content-Type'] = contentType;
  } else if (body !== undefined) {
    payload = JSON.stringify(body);
    headers['Content-Type'] = 'application/json';
  }
  const abort = window.AbortController ? new AbortController() : null;
  const deadline = abort ? setTimeout(() => abort.abort(), timeoutMs) : null;
  let response;
  let data = null;
  try {
    try {
      response = await fetch(boot.api + path, {
        method, headers, body: payload, cache: 'no-store', credentials: 'same-origin', signal: abort ? abort.signal : undefined,
      });
    } catch (e) {
      throw new ApiError(0, abort && abort.signal.aborted ? 'timeout' : 'network');
    }
    try {
      data = await response.json();
    } catch (e) {
      if (abort && abort.signal.aborted) throw new ApiError(0, 'timeout');
      data = null;
    }
  } finally {
    if (deadline) clearTimeout(deadline);
  }
  if (!response.ok) {
    const detail = data && data.detail && !Array.isArray(data.detail) ? data.detail : {};
    let message = detail.message || (data && data.message);
    // A 422 lists its field errors: [{loc, msg, type}, ...].
    if (!message && data && Array.isArray(data.detail)) {
      message = data.detail.map((item) => (item && typeof item.msg === 'string' ? item.msg : '')).filter(Boolean).join(' ');
    }
    const retryAfter = Math.min(Math.max(Number(response.headers.get('retry-after')) || 0, 0), 120);
    throw new ApiError(response.status, detail.error, message, retryAfter);
  }
  if (!data) throw new ApiError(502, 'bad_response');
  return data;
}

/** Worth trying again: no answer, too many requests, a server failure. */
export const retryable = (err) => err.status === 0 || err.status === 429 || err.status >= 500;

export function errorText(err) {
  if (err.status === 0) return t('error_network');
  if (err.status === 429) return t('error_rate_limited');
  return t('error_server');
}
