import got, { RequestError, TimeoutError } from 'got';
import type { z } from 'zod';
import { checkWebhookUrl } from './check-webhook-url.js';
import {
  createNodeSchema,
  exportLogsSchema,
  hostedNodeSchema,
  latestImageSchema,
  listNodesSchema,
  logsSchema,
  messageSchema,
  type HostedNode,
} from './schemas.js';
import { kindForStatus, ServiceError, type ServiceErrorKind } from './service-error.js';

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
  /** Told about the outcome of every call (e.g. for the service-calls metric); carries no secrets. */
  onCall?: (info: { endpoint: string; outcome: 'ok' | ServiceErrorKind; status?: number }) => void;
}

export interface RetryInfo {
  endpoint: string;
  /** 1 for the first retry. */
  attempt: number;
  delayMs: number;
  /** e.g. `HTTP 503`, `HTTP 429 (Retry-After 1)`, `ECONNRESET`, `timeout`. */
  reason: string;
}

export interface HostingClient {
  listNodes(): Promise<HostedNode[]>;
  getNode(id: string): Promise<HostedNode>;
  createNode(input: {
    name: string;
    network: 'regtest' | 'testnet';
    webhookUrl?: string;
  }): Promise<{ node: HostedNode; message?: string }>;
  destroyNode(id: string): Promise<{ message?: string }>;
  updateSettings(id: string, settings: { webhookUrl: string }): Promise<{ message?: string }>;
  startNode(id: string): Promise<{ message?: string }>;
  stopNode(id: string): Promise<{ message?: string }>;
  upgradeNode(id: string): Promise<{ message?: string }>;
  latestImage(): Promise<{ version: string }>;
  /** The raw parsed body (JSON value, or the text when it is not JSON): the webhooks room parses keys. */
  webhookPublicKey(): Promise<unknown>;
  exportLogs(id: string): Promise<{ taskId: string }>;
  getLogs(id: string, taskId: string): Promise<{ ready: boolean; urls: string[] }>;
}

type Method = 'GET' | 'POST' | 'DELETE';

interface CallSpec {
  method: Method;
  /** Template shown in errors, e.g. `POST /api/nodes/{id}/stop`. */
  endpoint: string;
  path: string;
  query?: Record<string, string>;
  body?: unknown;
}

interface CallResult {
  status: number;
  /** Parsed JSON, or undefined for an empty body. */
  json: unknown;
  /** Raw text of the body. */
  text: string;
  /** True when the text was not JSON. */
  notJson: boolean;
  retryAfter?: string;
}

const READY_STATUSES = new Set(['COMPLETED', 'COMPLETE', 'SUCCESS', 'SUCCEEDED', 'DONE', 'READY', 'FINISHED']);

/** A client for the hosting service management API (service-interface.md §4.1). */
export function createHostingClient(opts: HostingClientOptions): HostingClient {
  const baseUrl = opts.baseUrl.replace(/\/+$/, '');
  const token = opts.token;
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const retryLimit = Math.max(0, opts.retry?.limit ?? 2);
  const maxDelayMs = opts.retry?.maxDelayMs ?? 5_000;
  const baseDelayMs = opts.retry?.baseDelayMs ?? 250;
  const onRetry = opts.retry?.onRetry;

  const redact = (s: string): string => {
    let out = s;
    if (token) out = out.split(token).join('[redacted]');
    return out.replace(/Bearer\s+[A-Za-z0-9._~+/=-]+/gi, 'Bearer [redacted]');
  };
  const short = (s: string, n = 300): string => (s.length > n ? `${s.slice(0, n)}…` : s);

  const http = got.extend({
    retry: { limit: 0 },
    throwHttpErrors: false,
    followRedirect: false,
    responseType: 'text',
    timeout: { request: timeoutMs },
  });

  async function once(spec: CallSpec): Promise<CallResult> {
    const url = new URL(baseUrl + spec.path);
    for (const [k, v] of Object.entries(spec.query ?? {})) url.searchParams.set(k, v);
    const headers: Record<string, string> = {
      authorization: `Bearer ${token}`,
      accept: 'application/json',
    };
    const res = await http(url, {
      method: spec.method,
      headers: spec.body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      body: spec.body === undefined ? undefined : JSON.stringify(spec.body),
    });
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
    return { status: res.statusCode, json, text, notJson, retryAfter: res.headers['retry-after'] };
  }

  function retryAfterMs(header: unknown): number | undefined {
    if (typeof header !== 'string' || header.trim() === '') return undefined;
    const secs = Number(header);
    if (Number.isFinite(secs)) return Math.max(0, secs * 1000);
    const date = Date.parse(header);
    if (Number.isFinite(date)) return Math.max(0, date - Date.now());
    return undefined;
  }

  function messageFrom(json: unknown, text: string, notJson: boolean): string | undefined {
    const pick = (o: unknown): string | undefined => {
      if (!o || typeof o !== 'object') return undefined;
      const r = o as Record<string, unknown>;
      for (const key of ['message', 'error', 'detail', 'title']) {
        const v = r[key];
        if (typeof v === 'string' && v.trim()) return v;
        if (v && typeof v === 'object' && typeof (v as Record<string, unknown>).message === 'string') {
          return (v as Record<string, string>).message;
        }
      }
      return r.data ? pick(r.data) : undefined;
    };
    const found = typeof json === 'string' ? json : pick(json);
    if (found) return short(redact(found));
    if (notJson && text.trim()) return short(redact(text.trim()), 200);
    return undefined;
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
    const idempotent = spec.method === 'GET';
    for (let attempt = 0; ; attempt++) {
      const canRetry = idempotent && attempt < retryLimit;
      const backoff = Math.min(maxDelayMs, baseDelayMs * 2 ** attempt);
      let result: CallResult;
      try {
        result = await once(spec);
      } catch (err) {
        if ((err as { code?: string }).code === 'ERR_INVALID_URL') {
          throw new ServiceError({ endpoint: spec.endpoint, kind: 'network', detail: 'the service base URL is not a valid URL', hint: 'Set SERVICE_URL to the https:// base of the hosting service.' });
        }
        const isTimeout = err instanceof TimeoutError;
        const code = err instanceof RequestError ? err.code : undefined;
        if (canRetry) {
          onRetry?.({ endpoint: spec.endpoint, attempt: attempt + 1, delayMs: backoff, reason: isTimeout ? 'timeout' : code ?? 'network error' });
          await sleep(backoff);
          continue;
        }
        if (isTimeout) {
          throw new ServiceError({
            endpoint: spec.endpoint,
            kind: 'timeout',
            detail: `no answer within ${timeoutMs} ms${attempt ? ` (after ${attempt + 1} attempts)` : ''}`,
          });
        }
        throw new ServiceError({
          endpoint: spec.endpoint,
          kind: 'network',
          detail: `${code ?? 'network error'}${attempt ? ` (after ${attempt + 1} attempts)` : ''}`,
        });
      }
      const { status } = result;
      if (status >= 200 && status < 300) return result;
      if (canRetry && (status >= 500 || status === 429)) {
        const after = retryAfterMs(result.retryAfter);
        if (after === undefined || after <= maxDelayMs) {
          const delayMs = after ?? backoff;
          onRetry?.({
            endpoint: spec.endpoint,
            attempt: attempt + 1,
            delayMs,
            reason: `HTTP ${status}${after !== undefined ? ` (Retry-After ${String(result.retryAfter)})` : ''}`,
          });
          await sleep(delayMs);
          continue;
        }
      }
      const after = retryAfterMs(result.retryAfter);
      const detail =
        status === 429 && after !== undefined ? `asked to wait ${Math.ceil(after / 1000)} s before retrying` : attempt ? `after ${attempt + 1} attempts` : undefined;
      throw new ServiceError({
        endpoint: spec.endpoint,
        kind: kindForStatus(status),
        status,
        serviceMessage: messageFrom(result.json, result.text, result.notJson),
        detail,
      });
    }
  }

  function badResponse(endpoint: string, status: number, detail: string): ServiceError {
    return new ServiceError({ endpoint, kind: 'bad_response', status, detail: redact(detail) });
  }

  /** Parses JSON, telling a truncated or malformed body apart from a valid one. */
  function requireJson(spec: CallSpec, r: CallResult): unknown {
    if (r.notJson) {
      const t = r.text.trim();
      const looksTruncated = /^[[{]/.test(t);
      throw badResponse(
        spec.endpoint,
        r.status,
        `${looksTruncated ? 'the body is truncated or malformed JSON' : 'the body is not JSON'} (${t.length} chars, starts ${JSON.stringify(short(t, 60))})`,
      );
    }
    if (r.json === undefined) throw badResponse(spec.endpoint, r.status, 'the body is empty, a JSON object was expected');
    return r.json;
  }

  function describeIssue(err: z.ZodError, prefix: string): string {
    const issue = err.issues[0];
    if (!issue) return 'the body does not have the expected shape';
    const path = [prefix, ...issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`))]
      .join('')
      .replace(/^\./, '');
    return `field \`${path || '(body)'}\` is wrong: ${issue.message}`;
  }

  /** Parses with the schema, accepting a bare object or one wrapped in `{ data: ... }`. */
  function parseEnveloped<S extends z.ZodType>(spec: CallSpec, r: CallResult, schema: S): z.infer<S> {
    const json = requireJson(spec, r);
    const direct = schema.safeParse(json);
    if (direct.success) return direct.data;
    const data = json && typeof json === 'object' ? (json as Record<string, unknown>).data : undefined;
    if (data !== undefined && data !== null) {
      const wrapped = schema.safeParse(data);
      if (wrapped.success) return wrapped.data;
      throw badResponse(spec.endpoint, r.status, describeIssue(wrapped.error, 'data'));
    }
    throw badResponse(spec.endpoint, r.status, describeIssue(direct.error, ''));
  }

  function parseStrict<S extends z.ZodType>(spec: CallSpec, r: CallResult, schema: S): z.infer<S> {
    const json = requireJson(spec, r);
    const parsed = schema.safeParse(json);
    if (parsed.success) return parsed.data;
    throw badResponse(spec.endpoint, r.status, describeIssue(parsed.error, ''));
  }

  /** For operations whose body is not documented: a message if there is one, anything else is fine. */
  function messageOf(r: CallResult): { message?: string } {
    if (r.notJson) return r.text.trim() ? { message: short(redact(r.text.trim()), 300) } : {};
    if (typeof r.json === 'string') return { message: short(redact(r.json)) };
    const direct = messageSchema.safeParse(r.json);
    let message = direct.success ? direct.data.message : undefined;
    if (!message && r.json && typeof r.json === 'object') {
      const inner = messageSchema.safeParse((r.json as Record<string, unknown>).data);
      if (inner.success) message = inner.data.message;
    }
    return message ? { message: redact(message) } : {};
  }

  function nodePath(endpoint: string, id: string, suffix = ''): string {
    if (typeof id !== 'string' || id.trim() === '') {
      throw new ServiceError({ endpoint, kind: 'invalid', detail: 'no node id given', hint: 'Give a node id: see `node list`.' });
    }
    return `/api/nodes/${encodeURIComponent(id)}${suffix}`;
  }

  function checkUrl(endpoint: string, webhookUrl: unknown): void {
    const problem = checkWebhookUrl(webhookUrl);
    if (problem) {
      throw new ServiceError({
        endpoint,
        kind: 'invalid',
        detail: `not sent: ${problem}`,
        hint: 'Give an https:// URL that the service can reach (PUBLIC_URL of the bot).',
      });
    }
  }

  async function simple(method: Method, endpoint: string, path: string, body?: unknown): Promise<{ message?: string }> {
    const r = await call({ method, endpoint, path, body });
    return messageOf(r);
  }

  return {
    async listNodes() {
      const spec: CallSpec = { method: 'GET', endpoint: 'GET /api/nodes', path: '/api/nodes' };
      const r = await call(spec);
      return parseEnveloped(spec, r, listNodesSchema).nodes as HostedNode[];
    },

    async getNode(id) {
      const endpoint = 'GET /api/nodes/{id}';
      const spec: CallSpec = { method: 'GET', endpoint, path: nodePath(endpoint, id) };
      const r = await call(spec);
      // Envelope not documented: a bare node, `{ data: node }` or `{ node: node }`.
      const json = requireJson(spec, r);
      if (json && typeof json === 'object' && 'node' in json && !('nodeId' in json)) {
        return parseEnveloped(spec, { ...r, json: (json as Record<string, unknown>).node }, hostedNodeSchema) as HostedNode;
      }
      return parseEnveloped(spec, r, hostedNodeSchema) as HostedNode;
    },

    async createNode(input) {
      const endpoint = 'POST /api/nodes';
      if (input.network !== 'regtest' && input.network !== 'testnet') {
        throw new ServiceError({ endpoint, kind: 'invalid', detail: `not sent: network must be regtest or testnet, not ${JSON.stringify(input.network)}` });
      }
      if (typeof input.name !== 'string' || input.name.trim() === '') {
        throw new ServiceError({ endpoint, kind: 'invalid', detail: 'not sent: a node name is required' });
      }
      if (input.webhookUrl !== undefined) checkUrl(endpoint, input.webhookUrl);
      const body: Record<string, unknown> = { name: input.name, network: input.network };
      if (input.webhookUrl !== undefined) body.settings = { webhookUrl: input.webhookUrl };
      const spec: CallSpec = { method: 'POST', endpoint, path: '/api/nodes', body };
      const r = await call(spec);
      const json = requireJson(spec, r);
      const parsed = createNodeSchema.safeParse(json);
      if (parsed.success) {
        return { node: parsed.data.data as HostedNode, message: parsed.data.message ? redact(parsed.data.message) : undefined };
      }
      // Documented as `{ data, message }`; a bare node is accepted too.
      const bare = hostedNodeSchema.safeParse(json);
      if (bare.success) return { node: bare.data as HostedNode, ...messageOf(r) };
      throw badResponse(endpoint, r.status, describeIssue(parsed.error, ''));
    },

    async destroyNode(id) {
      const endpoint = 'DELETE /api/nodes';
      if (typeof id !== 'string' || id.trim() === '') nodePath(endpoint, id);
      return simple('DELETE', endpoint, '/api/nodes', { destroyNodeId: id });
    },

    async updateSettings(id, settings) {
      const endpoint = 'POST /api/nodes/{id}/settings';
      const path = nodePath(endpoint, id, '/settings');
      checkUrl(endpoint, settings?.webhookUrl);
      return simple('POST', endpoint, path, { settings: { webhookUrl: settings.webhookUrl } });
    },

    async startNode(id) {
      const endpoint = 'POST /api/nodes/{id}/start';
      return simple('POST', endpoint, nodePath(endpoint, id, '/start'));
    },

    async stopNode(id) {
      const endpoint = 'POST /api/nodes/{id}/stop';
      return simple('POST', endpoint, nodePath(endpoint, id, '/stop'));
    },

    async upgradeNode(id) {
      const endpoint = 'POST /api/nodes/{id}/upgrade';
      return simple('POST', endpoint, nodePath(endpoint, id, '/upgrade'));
    },

    async latestImage() {
      const spec: CallSpec = { method: 'GET', endpoint: 'GET /api/nodes/latest-rln-image', path: '/api/nodes/latest-rln-image' };
      const r = await call(spec);
      // Shape not documented: a bare string (JSON or text), `{ version }`, `{ data: { version } }`,
      // or the version under another common key.
      if (r.notJson && r.text.trim() && !/^[[{"]/.test(r.text.trim())) return { version: r.text.trim() };
      const json = requireJson(spec, r);
      if (typeof json === 'string' && json.trim()) return { version: json.trim() };
      const normalise = (o: unknown): unknown => {
        if (!o || typeof o !== 'object') return o;
        const rec = o as Record<string, unknown>;
        if (rec.version !== undefined) return rec;
        for (const key of ['latestVersion', 'latest', 'image', 'tag', 'imageVersion']) {
          if (typeof rec[key] === 'string') return { ...rec, version: rec[key] };
        }
        if (typeof rec.data === 'string') return { version: rec.data };
        if (rec.data && typeof rec.data === 'object') return { ...rec, data: normalise(rec.data) };
        return rec;
      };
      const parsed = parseEnveloped(spec, { ...r, json: normalise(json) }, latestImageSchema);
      return { ...parsed, version: parsed.version };
    },

    async webhookPublicKey() {
      const spec: CallSpec = { method: 'GET', endpoint: 'GET /api/webhook-public-key', path: '/api/webhook-public-key' };
      const r = await call(spec);
      if (r.notJson) return r.text;
      if (r.json === undefined) throw badResponse(spec.endpoint, r.status, 'the body is empty, a public key was expected');
      return r.json;
    },

    async exportLogs(id) {
      const endpoint = 'POST /api/nodes/{id}/logs';
      const spec: CallSpec = { method: 'POST', endpoint, path: nodePath(endpoint, id, '/logs') };
      const r = await call(spec);
      const parsed = parseEnveloped(spec, r, exportLogsSchema);
      return { taskId: parsed.taskId };
    },

    async getLogs(id, taskId) {
      const endpoint = 'GET /api/nodes/{id}/logs';
      if (typeof taskId !== 'string' || taskId.trim() === '') {
        throw new ServiceError({ endpoint, kind: 'invalid', detail: 'no taskId given', hint: 'Start an export first (`node logs`), then use its taskId.' });
      }
      const spec: CallSpec = { method: 'GET', endpoint, path: nodePath(endpoint, id, '/logs'), query: { taskId } };
      const r = await call(spec);
      const json = requireJson(spec, r);
      if (Array.isArray(json)) {
        const urls = json.filter((u): u is string => typeof u === 'string');
        return { ready: urls.length > 0, urls };
      }
      // Every field of the logs schema is optional, so unwrap `{ data }` before parsing.
      const rec = json && typeof json === 'object' ? (json as Record<string, unknown>) : undefined;
      const inner = rec && rec.data && typeof rec.data === 'object' && !['urls', 'downloadUrls', 'url', 'ready'].some((k) => k in rec) ? rec.data : json;
      if (Array.isArray(inner)) {
        const urls = inner.filter((u): u is string => typeof u === 'string');
        return { ready: urls.length > 0, urls };
      }
      const parsed = parseStrict(spec, { ...r, json: inner }, logsSchema);
      const urls = [...(parsed.urls ?? []), ...(parsed.downloadUrls ?? []), ...(parsed.url ? [parsed.url] : [])];
      const statusReady = typeof parsed.status === 'string' && READY_STATUSES.has(parsed.status.toUpperCase());
      return { ready: urls.length > 0 || parsed.ready === true || statusReady, urls };
    },
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
