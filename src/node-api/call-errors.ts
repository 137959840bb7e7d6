/**
 * What a failed request means: which failures are worth a retry and after how long, and the
 * NodeApiError a failure becomes (never with a token, a password or a request body in it).
 */
import { HTTPError, RequestError } from 'got';
import type { EndpointName } from './endpoints.js';
import { parseLosslessJson } from './json.js';
import { NodeApiError } from './node-api-error.js';

const TLS_CODES = /^(ERR_TLS|ERR_SSL|EPROTO|CERT_|DEPTH_ZERO|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|ERR_OSSL)/;
export const RETRY_STATUS = [500, 502, 503, 504, 521, 522, 524];
/** Network errors a read is retried on (got's own list). */
const RETRY_CODES = new Set(['ETIMEDOUT', 'ECONNRESET', 'EADDRINUSE', 'ECONNREFUSED', 'EPIPE', 'ENOTFOUND', 'ENETUNREACH', 'EAI_AGAIN']);
/** A retry starts only when at least this much of the deadline would be left for it. */
export const MIN_RETRY_MS = 1_000;
/** A timed-out attempt with less than this left of the deadline was cut by the deadline. */
export const DEADLINE_SLACK_MS = 50;

/** The delay before retrying after `e`, or undefined when `e` is not worth a retry. */
export function retryDelay(e: unknown, attempt: number, baseDelay: number): number | undefined {
  const backoff = Math.min(baseDelay * 2 ** (attempt - 1), 2000);
  if (e instanceof HTTPError) {
    if (!RETRY_STATUS.includes(e.response.statusCode)) return undefined;
    const after = retryAfterMs(e.response.headers['retry-after']);
    return after === undefined ? backoff : Math.min(after, 10_000);
  }
  return e instanceof RequestError && RETRY_CODES.has(e.code) ? backoff : undefined;
}

/** `Retry-After` as seconds or an HTTP date, in ms; undefined when absent or unreadable. */
function retryAfterMs(value: string | string[] | undefined): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) return undefined;
  if (/^\d+$/.test(text.trim())) return Number(text.trim()) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

export function translate(endpoint: EndpointName, e: unknown): NodeApiError {
  const label = `/${endpoint}`;
  if (e instanceof HTTPError) {
    const status = e.response.statusCode;
    const raw = typeof e.response.body === 'string' ? e.response.body : String(e.response.body ?? '');
    let body: unknown;
    try {
      body = raw.trim() ? parseLosslessJson(raw) : undefined;
    } catch {
      body = undefined;
    }
    const b = body && typeof body === 'object' ? (body as Record<string, unknown>) : undefined;
    if (b && typeof b.error === 'string') {
      const rlnName = typeof b.name === 'string' && b.name ? b.name : undefined;
      return new NodeApiError({
        endpoint,
        kind: 'rln',
        status,
        rlnName,
        message: `node API ${label} failed (${status}${rlnName ? ` ${rlnName}` : ''}): ${b.error.slice(0, 300)}`,
        serviceMessage: b.error.slice(0, 300),
      });
    }
    const message = b && typeof b.message === 'string' ? b.message.slice(0, 300) : (e.response.statusMessage ?? 'no message');
    return new NodeApiError({ endpoint, kind: 'http', status, message: `node API ${label} failed (${status}): ${message}` });
  }
  if (e instanceof RequestError) {
    const code = e.code ?? 'ERR';
    if (TLS_CODES.test(code)) return new NodeApiError({ endpoint, kind: 'tls', message: `node API ${label}: TLS failed (${code})` });
    if (code === 'ERR_BODY_PARSE_FAILURE' || (code === 'ECONNRESET' && e.response)) {
      return new NodeApiError({ endpoint, kind: 'malformed', message: `node API ${label}: the answer was cut off (${code})` });
    }
    return new NodeApiError({ endpoint, kind: 'network', message: `node API ${label}: cannot reach the node (${code})` });
  }
  return new NodeApiError({ endpoint, kind: 'network', message: `node API ${label}: ${(e as Error)?.message ?? 'request failed'}` });
}
