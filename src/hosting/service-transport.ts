/**
 * The hosting service's transport: one HTTPS call with the bearer token, retried by got (GETs only,
 * on network errors, time-outs, 5xx and 429, waiting Retry-After), read up to SERVICE_MAX_BYTES, and
 * turned into a ServiceError that says what went wrong. The API methods are in create-hosting-client.ts.
 */
import got, { RequestError, TimeoutError } from 'got';
import { retryAfterMs, type CallResult, type CallSpec } from './read-response.js';
import { kindForStatus, ServiceError } from './service-error.js';
import type { ServiceErrorKind } from './service-error.js';
import { TRANSIENT_NETWORK_CODES } from '../vocabulary/index.js';

/** The most a service answer may hold by default (SERVICE_MAX_BYTES). */
export const SERVICE_MAX_BYTES = 4 * 1024 * 1024;

/** `4 MiB`, `512 KiB`, `300 bytes`. */
export function sizeText(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / 1024 / 1024} MiB`;
  if (bytes >= 1024 * 1024) return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} KiB`;
  return `${bytes} bytes`;
}

export interface RetryInfo {
  endpoint: string;
  /** 1 for the first retry. */
  attempt: number;
  delayMs: number;
  /** e.g. `HTTP 503`, `HTTP 429 (Retry-After 1)`, `ECONNRESET`, `timeout`. */
  reason: string;
}

export interface HostingClientOptions {
  /** Base URL of the management API, e.g. `https://service.example` (paths start with /api). */
  baseUrl: string;
  /** Bearer token. Sent on every call, never put into an error or a log line. */
  token: string;
  /** Time allowed for one HTTP request, in ms. Default 10000. */
  timeoutMs?: number;
  /**
   * Retries of idempotent reads (GET only) on network errors, timeouts, 5xx and 429.
   * limit: retries after the first attempt (default 2). maxDelayMs: longest wait between
   * attempts (default 5000); a Retry-After longer than that is not waited for, the call fails.
   * baseDelayMs: first backoff step (default 250), doubled on each retry.
   * onRetry: told about every retry (for logs and tests); carries no secrets.
   */
  retry?: {
    limit?: number;
    maxDelayMs?: number;
    baseDelayMs?: number;
    onRetry?: (info: RetryInfo) => void;
  };
  /** The most an answer may hold (SERVICE_MAX_BYTES, default 4 MiB): a longer one is refused as it arrives. */
  maxBytes?: number;
  /**
   * Checks a webhook URL before it is given to the service, which will POST to it (ALLOW_PRIVATE_URLS:
   * an inside address is refused): the reason it is refused, or undefined. Without it, not checked.
   */
  checkWebhookTarget?: (url: string) => Promise<string | undefined>;
  /** Told about the outcome of every call (e.g. for the service-calls metric); carries no secrets. */
  onCall?: (info: { endpoint: string; outcome: 'ok' | ServiceErrorKind; status?: number }) => void;
}

/** Answers worth asking again (for a GET): rate limited, or a server error. */
const RETRY_STATUS = [429, ...Array.from({ length: 100 }, (_, i) => 500 + i)];

/** Network errors worth a retry: got's defaults and a few more a flaky link or proxy gives. */
const RETRY_ERROR_CODES = [...TRANSIENT_NETWORK_CODES, 'EHOSTUNREACH', 'ECONNABORTED', 'EPROTO', 'ERR_STREAM_PREMATURE_CLOSE'];

/** Calls the service: `call` reports each call's outcome to `onCall`, and throws a ServiceError when it fails. */
export function createServiceTransport(
  opts: HostingClientOptions,
  messageFrom: (json: unknown, text: string, notJson: boolean) => string | undefined,
): { call: (spec: CallSpec) => Promise<CallResult> } {
  const baseUrl = opts.baseUrl.replace(/\/+$/, '');
  const token = opts.token;
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const retryLimit = Math.max(0, opts.retry?.limit ?? 2);
  const maxDelayMs = opts.retry?.maxDelayMs ?? 5_000;
  const baseDelayMs = opts.retry?.baseDelayMs ?? 250;
  const onRetry = opts.retry?.onRetry;

  const maxBytes = opts.maxBytes ?? SERVICE_MAX_BYTES;

  const http = got.extend({
    throwHttpErrors: false,
    followRedirect: false,
    responseType: 'text',
    timeout: { request: timeoutMs },
  });

  /**
   * One call, retried by got: GETs only, on network errors, time-outs, 5xx and 429, waiting
   * Retry-After when the service gives one (a longer wait than maxDelayMs is not retried).
   */
  async function once(spec: CallSpec): Promise<CallResult & { attempts: number }> {
    const url = new URL(baseUrl + spec.path);
    for (const [k, v] of Object.entries(spec.query ?? {})) url.searchParams.set(k, v);
    const headers: Record<string, string> = {
      authorization: `Bearer ${token}`,
      accept: 'application/json',
    };
    // The delay got is about to wait, for onRetry (beforeRetry runs after the wait and is not told it).
    let delayMs = 0;
    const pending = http(url, {
      method: spec.method,
      headers: spec.body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      body: spec.body === undefined ? undefined : JSON.stringify(spec.body),
      retry: {
        limit: spec.method === 'GET' ? retryLimit : 0,
        methods: ['GET'],
        statusCodes: RETRY_STATUS,
        errorCodes: RETRY_ERROR_CODES,
        maxRetryAfter: maxDelayMs,
        calculateDelay: ({ attemptCount, computedValue, retryAfter }) => {
          // computedValue 0: got's rules say no (not a GET, limit reached, Retry-After too long...).
          if (computedValue === 0) return 0;
          delayMs = retryAfter !== undefined ? Math.max(1, retryAfter) : Math.min(maxDelayMs, baseDelayMs * 2 ** (attemptCount - 1));
          return delayMs;
        },
      },
      hooks: {
        beforeRetry: [
          (err, retryCount) => {
            const after = err.response?.headers['retry-after'];
            const reason = err.response
              ? `HTTP ${err.response.statusCode}${after !== undefined ? ` (Retry-After ${String(after)})` : ''}`
              : err instanceof TimeoutError
                ? 'timeout'
                : (err.code ?? 'network error');
            onRetry?.({ endpoint: spec.endpoint, attempt: retryCount, delayMs, reason });
          },
        ],
      },
    });
    // Read up to maxBytes: a longer answer (announced or not) is cancelled as it arrives, not held whole.
    let oversize = false;
    void pending.on('response', (r: { headers: Record<string, string | string[] | undefined> }) => {
      if (Number(r.headers['content-length']) > maxBytes) {
        oversize = true;
        pending.cancel();
      }
    });
    void pending.on('downloadProgress', ({ transferred }: { transferred: number }) => {
      if (transferred > maxBytes && !oversize) {
        oversize = true;
        pending.cancel();
      }
    });
    let res: Awaited<typeof pending>;
    try {
      res = await pending;
    } catch (e) {
      if (oversize)
        throw new ServiceError({
          endpoint: spec.endpoint,
          kind: 'bad_response',
          detail: `the answer is larger than ${sizeText(maxBytes)} (SERVICE_MAX_BYTES); it was not read`,
        });
      throw e;
    }
    const text = typeof res.body === 'string' ? res.body : String(res.body ?? '');
    let json: unknown;
    let notJson = false;
    if (text.trim() !== '') {
      try {
        json = JSON.parse(text);
      } catch {
        notJson = true;
      }
    }
    return { status: res.statusCode, json, text, notJson, retryAfter: res.headers['retry-after'], attempts: res.retryCount + 1 };
  }
  async function call(spec: CallSpec): Promise<CallResult> {
    try {
      const r = await callWithRetries(spec);
      opts.onCall?.({ endpoint: spec.endpoint, outcome: 'ok', status: r.status });
      return r;
    } catch (err) {
      if (err instanceof ServiceError) opts.onCall?.({ endpoint: spec.endpoint, outcome: err.kind, status: err.status });
      throw err;
    }
  }

  async function callWithRetries(spec: CallSpec): Promise<CallResult> {
    let result: CallResult & { attempts: number };
    try {
      result = await once(spec);
    } catch (err) {
      // Already told apart by once() (an answer over SERVICE_MAX_BYTES): not a network error.
      if (err instanceof ServiceError) throw err;
      if ((err as { code?: string }).code === 'ERR_INVALID_URL') {
        throw new ServiceError({
          endpoint: spec.endpoint,
          kind: 'network',
          detail: 'the service base URL is not a valid URL',
          hint: 'Set SERVICE_URL to the https:// base of the hosting service.',
        });
      }
      const attempts = err instanceof RequestError ? (err.request?.retryCount ?? 0) : 0;
      const after = attempts ? ` (after ${attempts + 1} attempts)` : '';
      if (err instanceof TimeoutError) {
        throw new ServiceError({ endpoint: spec.endpoint, kind: 'timeout', detail: `no answer within ${timeoutMs} ms${after}` });
      }
      const code = err instanceof RequestError ? err.code : undefined;
      throw new ServiceError({ endpoint: spec.endpoint, kind: 'network', detail: `${code ?? 'network error'}${after}` });
    }
    const { status, attempts } = result;
    if (status >= 200 && status < 300) return result;
    const after = retryAfterMs(result.retryAfter);
    const detail =
      status === 429 && after !== undefined
        ? `asked to wait ${Math.ceil(after / 1000)} s before retrying`
        : attempts > 1
          ? `after ${attempts} attempts`
          : undefined;
    throw new ServiceError({
      endpoint: spec.endpoint,
      kind: kindForStatus(status),
      status,
      serviceMessage: messageFrom(result.json, result.text, result.notJson),
      detail,
    });
  }

  return { call };
}
