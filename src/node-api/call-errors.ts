/**
 * What a failed request means: which failures are worth a retry and after how long, and the
 * NodeApiError a failure becomes (never with a token, a password or a request body in it).
 */
import type { EndpointName } from './endpoints.js';
import { parseLosslessJson } from './json.js';
import { NodeApiError } from './node-api-error.js';
import { TRANSIENT_NETWORK_CODES } from '../vocabulary/index.js';

const TLS_CODES = /^(ERR_TLS|ERR_SSL|EPROTO|CERT_|DEPTH_ZERO|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|ERR_OSSL)/;
export const RETRY_STATUS = [500, 502, 503, 504, 521, 522, 524];
/**
 * Network errors a read is retried on: the shared list (got's), and undici's words for the same (a socket
 * closed or reset by the other side, a connection not made in time).
 */
const RETRY_CODES = new Set<string>([...TRANSIENT_NETWORK_CODES, 'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT']);
/** A retry starts only when at least this much of the deadline would be left for it. */
export const MIN_RETRY_MS = 1_000;
/** A timed-out attempt with less than this left of the deadline was cut by the deadline. */
export const DEADLINE_SLACK_MS = 50;

/** The node answered an error status (4xx, 5xx): its status, headers and body (read within NODE_API_MAX_BYTES). */
export class HttpStatusError extends Error {
  override readonly name = 'HttpStatusError';
  constructor(
    readonly status: number,
    readonly statusMessage: string | undefined,
    readonly headers: Record<string, string | string[] | undefined>,
    readonly body: string,
  ) {
    super(`HTTP ${status}`);
  }
}

/** An attempt ran out of its time (the per-attempt timeout, or what was left of the deadline): retried as a read's ETIMEDOUT. */
export class AttemptTimeout extends Error {
  override readonly name = 'AttemptTimeout';
  readonly code = 'ETIMEDOUT';
  constructor(readonly ms: number) {
    super(`no answer in ${ms} ms`);
  }
}

/** The answer had begun (status and headers came) when the connection failed: it was cut off. */
export class CutOff extends Error {
  override readonly name = 'CutOff';
  readonly code: string;
  constructor(cause: unknown) {
    super('the answer was cut off', { cause });
    this.code = codeOf(cause) ?? 'ERR';
  }
}

/** A network error's code (`ECONNREFUSED`, `UND_ERR_SOCKET`, `ERR_TLS_…`), when it has one. */
function codeOf(e: unknown): string | undefined {
  const code = e && typeof e === 'object' ? (e as { code?: unknown }).code : undefined;
  return typeof code === 'string' && code ? code : undefined;
}

/** The delay before retrying after `e`, or undefined when `e` is not worth a retry. */
export function retryDelay(e: unknown, attempt: number, baseDelay: number): number | undefined {
  const backoff = Math.min(baseDelay * 2 ** (attempt - 1), 2000);
  if (e instanceof HttpStatusError) {
    if (!RETRY_STATUS.includes(e.status)) return undefined;
    const after = retryAfterMs(e.headers['retry-after']);
    return after === undefined ? backoff : Math.min(after, 10_000);
  }
  const code = codeOf(e);
  return code && RETRY_CODES.has(code) ? backoff : undefined;
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
  if (e instanceof HttpStatusError) {
    const status = e.status;
    const raw = e.body;
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
    const message = b && typeof b.message === 'string' ? b.message.slice(0, 300) : e.statusMessage || 'no message';
    return new NodeApiError({ endpoint, kind: 'http', status, message: `node API ${label} failed (${status}): ${message}` });
  }
  const code = codeOf(e);
  if (code) {
    if (TLS_CODES.test(code)) return new NodeApiError({ endpoint, kind: 'tls', message: `node API ${label}: TLS failed (${code})` });
    if (e instanceof CutOff || code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH') {
      return new NodeApiError({ endpoint, kind: 'malformed', message: `node API ${label}: the answer was cut off (${code})` });
    }
    return new NodeApiError({ endpoint, kind: 'network', message: `node API ${label}: cannot reach the node (${code})` });
  }
  return new NodeApiError({ endpoint, kind: 'network', message: `node API ${label}: ${(e as Error)?.message ?? 'request failed'}` });
}
