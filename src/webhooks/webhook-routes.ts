/**
 * `POST /webhooks/service` and `POST /webhooks/service/:nodeId`: the service's signed events,
 * served as a raw `node:http` route (the server's `rawRoute`, before fastify's routing): at
 * thousands of events a second fastify's per-request work (its request and reply objects,
 * hooks, content-type parsing, error handler) was a share of the bot's CPU that the answer does
 * not need (issue 29). What fastify did for these routes is done here, with the same answers:
 *   closing (503, as `return503OnClosing`) -> admission before the body is read: signature
 *   header present (401), declared size (413), bodies in flight (503 with Retry-After)
 *   -> body read, at most the limit (413) and as long as declared (400 `bad_request`)
 *   -> the event's checks, store and answer (webhook-intake.ts).
 * Every refusal is logged with its reason (never the body) and counted in
 * `metrics.webhooks{outcome="refused", reason}`. Other methods and paths go on to fastify.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyPluginAsync } from 'fastify';
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics.js';
import type { NodeDirectory } from './node-directory.js';
import type { ServiceEvent } from './read-event.js';
import { createBodyAdmission, rawRoutingOf, type RawRoute } from '../http/index.js';
import { createIntake, WEBHOOK_MAX_EVENT_AGE_MS, type IngestResult, type IngestWith, type Refusal } from './webhook-intake.js';

export { WEBHOOK_MAX_JSON_DEPTH, WEBHOOK_MAX_EVENT_AGE_MS, type IngestResult, type IngestWith } from './webhook-intake.js';

/** Service events are small: the default limit (WEBHOOK_BODY_LIMIT) is 64 KiB. */
export const WEBHOOK_BODY_LIMIT = 64 * 1024;
/** Always accepted, whatever WEBHOOK_SIGNATURE_HEADER says (the public service sends it). */
export const THUNDERSTACK_SIGNATURE_HEADER = 'X-ThunderStack-Signature';

const PATH = '/webhooks/service';
/** As fastify's router: a longer path parameter is not a route. */
const MAX_PARAM_LENGTH = 100;

export interface WebhookRouteDeps {
  /** Verifies a signature over the raw body (a KeyCache): a boolean when it can tell at once. */
  keys: { verify(rawBody: Buffer, signature: string): boolean | Promise<boolean> };
  /** Knows the account's nodes (createNodeDirectory). */
  nodes: Pick<NodeDirectory, 'lookup'> & Partial<Pick<NodeDirectory, 'cached'>>;
  /** Stores the event durably (routing may follow, after the answer); must be synchronous-durable when it returns. */
  ingest(event: ServiceEvent & { nodeName?: string }): IngestResult | Promise<IngestResult>;
  /**
   * The same, answered by callbacks, used instead of `ingest` when given: a promise per event,
   * and one per step after it, were a share of the request path's allocations (issue 29).
   * `onStored` only once the event is committed; a throw inside counts as `onError`'s.
   */
  ingestWith?: IngestWith;
  /** `config.WEBHOOK_SIGNATURE_HEADER`; default `X-Service-Signature`. */
  signatureHeader?: string;
  logger: Logger;
  metrics?: Metrics;
  /** Default WEBHOOK_BODY_LIMIT (64 KiB). */
  bodyLimit?: number;
  /** Events whose own timestamp is older than this are refused (400 `stale`); the dedupe retention. */
  maxEventAgeMs?: number;
  /**
   * Events handled at once across both routes (default 2,048), within a memory budget of 32
   * bodies of the largest size (2 MiB at the default 64 KiB limit); more get 503 with
   * Retry-After before their body is read. Service events are small (a few hundred bytes), so
   * a burst is stored rather than shed, while large bodies stay bounded as before.
   */
  maxInFlight?: number;
  now?: () => number;
}

/** What fastify answered JSON with. */
const JSON_TYPE = 'application/json; charset=utf-8';
const CLOSING_BODY = '{"error":"Service Unavailable","message":"Service Unavailable","statusCode":503}';

/** The node of `/webhooks/service/:nodeId` ('' for `/webhooks/service`), or undefined when the path is another. */
function nodeOfPath(url: string): string | undefined {
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  if (path === PATH) return '';
  if (path.length <= PATH.length + 1 || !path.startsWith(PATH) || path.charCodeAt(PATH.length) !== 47 /* / */) return undefined;
  const segment = path.slice(PATH.length + 1);
  if (segment.includes('/') || segment.length > MAX_PARAM_LENGTH) return undefined;
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

const send = (res: ServerResponse, code: number, body: string, headers?: Record<string, string>): void => {
  if (res.headersSent || res.destroyed) return;
  if (headers) for (const h in headers) res.setHeader(h, headers[h]);
  res.writeHead(code, { 'content-type': JSON_TYPE, 'content-length': Buffer.byteLength(body) }).end(body);
};

export function webhookRoutes(deps: WebhookRouteDeps): FastifyPluginAsync {
  const log = deps.logger.child({ room: 'webhooks' });
  const headers = [
    ...new Set([(deps.signatureHeader ?? 'X-Service-Signature').toLowerCase(), THUNDERSTACK_SIGNATURE_HEADER.toLowerCase()]),
  ];
  const bodyLimit = deps.bodyLimit ?? WEBHOOK_BODY_LIMIT;
  const unsignedMessage = `no ${headers.join(' or ')} header`;
  const admission = createBodyAdmission({
    bodyLimit,
    maxInFlight: deps.maxInFlight ?? 2_048,
    maxBytesInFlight: 32 * bodyLimit,
    unsignedMessage,
    unsignedReason: 'missing_signature',
  });

  const refuse = (res: ServerResponse, r: Refusal): void => {
    deps.metrics?.webhooks.inc({ outcome: 'refused', reason: r.reason });
    log.warn({ reason: r.reason, status: r.code, path: res.req.url, ip: res.req.socket.remoteAddress }, `webhook refused: ${r.message}`);
    send(res, r.code, JSON.stringify({ error: r.reason, message: r.message }), r.retryAfter ? { 'retry-after': r.retryAfter } : undefined);
  };

  const fail = (res: ServerResponse, e: unknown): void => {
    const err = e as { code?: string } | undefined;
    if (err?.code === 'SQLITE_BUSY' || err?.code === 'SQLITE_LOCKED') {
      // The store is locked by someone else: not accepted, so the service must redeliver.
      deps.metrics?.webhooks.inc({ outcome: 'refused', reason: 'store_busy' });
      log.error({ code: err.code }, 'webhook not stored: the database is locked');
      return send(
        res,
        503,
        JSON.stringify({ error: 'store_busy', message: 'the event could not be stored right now; redeliver it later' }),
        {
          'retry-after': '5',
        },
      );
    }
    deps.metrics?.webhooks.inc({ outcome: 'error', reason: 'internal' });
    log.error({ err: e }, 'webhook handling failed');
    send(res, 500, JSON.stringify({ error: 'internal', message: 'the event could not be handled; it will be accepted on redelivery' }));
  };

  const intake = createIntake<ServerResponse>(
    {
      keys: deps.keys,
      nodes: deps.nodes,
      ingest: (event) => deps.ingest(event),
      ingestWith: deps.ingestWith,
      log,
      metrics: deps.metrics,
      maxAgeMs: deps.maxEventAgeMs ?? WEBHOOK_MAX_EVENT_AGE_MS,
      now: deps.now ?? Date.now,
    },
    {
      refuse,
      fail,
      send: (res, code, body) => send(res, code, body),
    },
  );

  /** The first signature header present and not blank. */
  const signatureOf = (req: IncomingMessage): string | undefined => {
    for (const h of headers) {
      const v = req.headers[h];
      const s = Array.isArray(v) ? v[0] : v;
      if (s && s.trim()) return s;
    }
    return undefined;
  };

  /** Reads the body (at most the limit, and as long as declared), then hands it to the intake. */
  const read = (req: IncomingMessage, res: ServerResponse, signature: string, nodeId: string | undefined): void => {
    const declared = Number(req.headers['content-length']);
    const chunks: Buffer[] = [];
    let received = 0;
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > bodyLimit) {
        off();
        res.setHeader('connection', 'close');
        refuse(res, { code: 413, reason: 'too_large', message: `the body is over ${bodyLimit} bytes` });
        return;
      }
      chunks.push(chunk);
    };
    // (Its listeners are left on the request at its end: it emits nothing more, and goes with them.)
    const onEnd = () => {
      if (!Number.isNaN(declared) && received !== declared) {
        return refuse(res, { code: 400, reason: 'bad_request', message: 'Request body size did not match Content-Length' });
      }
      intake(res, chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, received), signature, nodeId);
    };
    // The request ended before its body did (the client went away): nothing to answer.
    const onError = () => off();
    const off = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  };

  return async (app) => {
    const raw = rawRoutingOf(app);
    if (!raw) throw new Error('webhookRoutes mounts a raw node:http route: register it on a server made by createHttpServer');
    const route: RawRoute = (req, res) => {
      if (req.method !== 'POST' || !req.url?.startsWith(PATH)) return false;
      const node = nodeOfPath(req.url);
      if (node === undefined) return false;
      if (raw.httpClosing()) {
        // As fastify answers while it closes: the service redelivers to a replica still up.
        res.setHeader('connection', 'close');
        send(res, 503, CLOSING_BODY);
        return true;
      }
      const signature = signatureOf(req);
      // Refused before the body is read: unsigned, declared too large, or too many bodies in flight.
      const taken = admission.take(signature !== undefined, req.headers['content-length']);
      if (typeof taken !== 'number') {
        res.setHeader('connection', 'close');
        refuse(res, taken);
        return true;
      }
      // A response emits 'close' once: when it has finished or when its connection ends before.
      res.once('close', () => admission.release(taken));
      // An empty unsigned body gets past the admission (as it would for Slack's ssl_check): refused here.
      if (signature === undefined) refuse(res, { code: 401, reason: 'missing_signature', message: unsignedMessage });
      else read(req, res, signature, node === '' ? undefined : node);
      return true;
    };
    raw.rawRoute(route);
  };
}
