/**
 * `POST /webhooks/service` and `POST /webhooks/service/:nodeId`: the service's signed
 * events. Checks in this order, before anything else is done with the body:
 *   size (413) -> signature header present and valid (401; 503 when no key can be had)
 *   -> JSON (400) -> shape: a string nodeId (400) -> path nodeId equals payload nodeId (403)
 *   -> the node belongs to the account (404; 503 when the node list cannot be fetched)
 *   -> stored durably (202, or 200 `{duplicate:true}` for a redelivery).
 * Every refusal is logged with its reason (never the body) and counted in
 * `metrics.webhooks{outcome="refused", reason}`.
 *
 * The plugin is encapsulated: its raw-Buffer body parser applies to these routes only.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics.js';
import { KeyUnavailableError } from './key-cache.js';
import type { NodeDirectory } from './node-directory.js';
import { readEvent, type ServiceEvent } from './read-event.js';
import { jsonDepth } from './event-time.js';
import { admitBodies, lazyRequestLogger } from '../http/index.js';

/** Service events are small: the default limit (WEBHOOK_BODY_LIMIT) is 64 KiB. */
export const WEBHOOK_BODY_LIMIT = 64 * 1024;
/** Deeper JSON is refused with 400 before it is parsed or stored (it would overflow the stack). */
export const WEBHOOK_MAX_JSON_DEPTH = 64;
/** Events older than this (the dedupe retention) are refused: their dedupe key may be gone. */
export const WEBHOOK_MAX_EVENT_AGE_MS = 30 * 24 * 3600_000;
/** Always accepted, whatever WEBHOOK_SIGNATURE_HEADER says (the public service sends it). */
export const THUNDERSTACK_SIGNATURE_HEADER = 'X-ThunderStack-Signature';

export interface IngestResult {
  duplicate: boolean;
  eventId?: number;
}

export interface WebhookRouteDeps {
  /** Verifies a signature over the raw body (a KeyCache): a boolean when it can tell at once. */
  keys: { verify(rawBody: Buffer, signature: string): boolean | Promise<boolean> };
  /** Knows the account's nodes (createNodeDirectory). */
  nodes: Pick<NodeDirectory, 'lookup'> & Partial<Pick<NodeDirectory, 'cached'>>;
  /** Stores the event durably (routing may follow, after the answer); must be synchronous-durable when it returns. */
  ingest(event: ServiceEvent & { nodeName?: string }): IngestResult | Promise<IngestResult>;
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

type Refusal = { code: number; reason: string; message: string };

/** What fastify answers an object with; the two answers of every event are sent pre-serialized. */
const JSON_TYPE = 'application/json; charset=utf-8';
const DUPLICATE_BODY = JSON.stringify({ ok: true, duplicate: true });

const isPromise = <T>(v: T | Promise<T>): v is Promise<T> => typeof (v as { then?: unknown } | null)?.then === 'function';

export function webhookRoutes(deps: WebhookRouteDeps): FastifyPluginAsync {
  const log = deps.logger.child({ room: 'webhooks' });
  const headers = [
    ...new Set([(deps.signatureHeader ?? 'X-Service-Signature').toLowerCase(), THUNDERSTACK_SIGNATURE_HEADER.toLowerCase()]),
  ];
  const bodyLimit = deps.bodyLimit ?? WEBHOOK_BODY_LIMIT;
  const maxAgeMs = deps.maxEventAgeMs ?? WEBHOOK_MAX_EVENT_AGE_MS;
  const now = deps.now ?? Date.now;

  const refuse = (req: FastifyRequest, reply: FastifyReply, r: Refusal) => {
    deps.metrics?.webhooks.inc({ outcome: 'refused', reason: r.reason });
    log.warn({ reason: r.reason, status: r.code, path: req.url, ip: req.ip }, `webhook refused: ${r.message}`);
    return reply.code(r.code).send({ error: r.reason, message: r.message });
  };

  return async (app) => {
    // The handler logs through `log`: fastify's per-request child logger is made only if used.
    app.setChildLoggerFactory(lazyRequestLogger);
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit }, (_req, body, done) => done(null, body));
    // Refused before the body is read: unsigned, declared too large, or too many bodies in flight.
    app.addHook(
      'onRequest',
      admitBodies({
        bodyLimit,
        maxInFlight: deps.maxInFlight ?? 2_048,
        maxBytesInFlight: 32 * bodyLimit,
        signed: (req) => headers.some((h) => typeof req.headers[h] === 'string' && req.headers[h].trim() !== ''),
        refuse: (req, reply, code, reason, message) => refuse(req, reply, { code, reason, message }),
        unsignedMessage: `no ${headers.join(' or ')} header`,
        unsignedReason: 'missing_signature',
      }),
    );

    app.setErrorHandler((err: { statusCode?: number; code?: string; message: string }, req, reply) => {
      if (err.code === 'SQLITE_BUSY' || err.code === 'SQLITE_LOCKED') {
        // The store is locked by someone else: not accepted, so the service must redeliver.
        deps.metrics?.webhooks.inc({ outcome: 'refused', reason: 'store_busy' });
        log.error({ code: err.code }, 'webhook not stored: the database is locked');
        return reply
          .code(503)
          .header('retry-after', '5')
          .send({ error: 'store_busy', message: 'the event could not be stored right now; redeliver it later' });
      }
      const status = err.statusCode ?? 500;
      if (status === 413) return refuse(req, reply, { code: 413, reason: 'too_large', message: `the body is over ${bodyLimit} bytes` });
      if (status >= 400 && status < 500) return refuse(req, reply, { code: status, reason: 'bad_request', message: err.message });
      deps.metrics?.webhooks.inc({ outcome: 'error', reason: 'internal' });
      log.error({ err }, 'webhook handling failed');
      return reply.code(500).send({ error: 'internal', message: 'the event could not be handled; it will be accepted on redelivery' });
    });

    // The handler is synchronous up to the store, and awaits only what really is asynchronous:
    // with the key and the node list cached (every request but the first few), verification and
    // the node look-up answer at once, so the only promise of a request is the store's. (Every
    // promise costs, and more so while an AsyncLocalStorage is active, as the store's is.)
    type Req = FastifyRequest<{ Params: { nodeId?: string } }>;

    /** An unexpected error: fastify's error handler answers it (store_busy, 500), as a throw would. */
    const fail = (reply: FastifyReply, err: unknown) => {
      if (!reply.sent) reply.send(err instanceof Error ? err : new Error(String(err)));
    };

    const handle = (req: Req, reply: FastifyReply): void => {
      const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      if (raw.length > bodyLimit)
        return void refuse(req, reply, { code: 413, reason: 'too_large', message: `the body is over ${bodyLimit} bytes` });

      let signature: string | undefined;
      for (const h of headers) {
        const v = req.headers[h];
        const s = Array.isArray(v) ? v[0] : v;
        if (s && s.trim()) {
          signature = s;
          break;
        }
      }
      if (!signature)
        return void refuse(req, reply, { code: 401, reason: 'missing_signature', message: `no ${headers.join(' or ')} header` });
      let verified: boolean | Promise<boolean>;
      try {
        verified = deps.keys.verify(raw, signature);
      } catch (err) {
        return verifyFailed(req, reply, err);
      }
      if (typeof verified === 'boolean') return verifiedThen(req, reply, raw, verified);
      verified.then(
        (valid) => verifiedThen(req, reply, raw, valid),
        (err: unknown) => verifyFailed(req, reply, err),
      );
    };

    const verifyFailed = (req: Req, reply: FastifyReply, err: unknown): void => {
      if (err instanceof KeyUnavailableError) {
        return void refuse(req, reply, {
          code: 503,
          reason: 'key_unavailable',
          message: `${err.message}; the service should redeliver later`,
        });
      }
      fail(reply, err);
    };

    const verifiedThen = (req: Req, reply: FastifyReply, raw: Buffer, valid: boolean): void => {
      try {
        if (!valid)
          return void refuse(req, reply, {
            code: 401,
            reason: 'bad_signature',
            message: 'the signature does not verify with the account webhook key',
          });

        if (jsonDepth(raw, WEBHOOK_MAX_JSON_DEPTH) > WEBHOOK_MAX_JSON_DEPTH) {
          return void refuse(req, reply, {
            code: 400,
            reason: 'too_deep',
            message: `the JSON is nested more than ${WEBHOOK_MAX_JSON_DEPTH} levels deep`,
          });
        }
        let json: unknown;
        try {
          json = JSON.parse(raw.toString('utf8').replace(/^\uFEFF/, ''));
        } catch {
          return void refuse(req, reply, { code: 400, reason: 'not_json', message: 'the body is not JSON' });
        }
        const read = readEvent(json, raw);
        if (!read.ok)
          return void refuse(req, reply, { code: read.reason === 'node_mismatch' ? 403 : 400, reason: read.reason, message: read.message });
        const event = read.event;
        const stampedMs = event.eventTimestamp ? Date.parse(event.eventTimestamp) : NaN;
        if (Number.isFinite(stampedMs) && stampedMs < now() - maxAgeMs) {
          // Its dedupe key may already be pruned: accepting it could post a replay a second time.
          return void refuse(req, reply, {
            code: 400,
            reason: 'stale',
            message: `the event is dated ${event.eventTimestamp}, older than the ${Math.round(maxAgeMs / 86_400_000)}-day retention; it is not stored`,
          });
        }
        const expected = req.params.nodeId;
        if (expected !== undefined && expected !== event.nodeId) {
          return void refuse(req, reply, {
            code: 403,
            reason: 'node_mismatch',
            message: 'the payload nodeId differs from the node of this URL',
          });
        }

        const known = deps.nodes.cached?.(event.nodeId);
        if (known) return found(req, reply, event, known);
        deps.nodes.lookup(event.nodeId).then(
          (node) => found(req, reply, event, node),
          (err: unknown) => {
            log.warn({ err }, 'webhook: could not list the account nodes');
            refuse(req, reply, {
              code: 503,
              reason: 'node_lookup_failed',
              message: 'the node list of the account could not be fetched; redeliver later',
            });
          },
        );
      } catch (err) {
        fail(reply, err);
      }
    };

    const found = (
      req: Req,
      reply: FastifyReply,
      event: ServiceEvent & { nodeName?: string },
      node: { name: string } | undefined,
    ): void => {
      try {
        if (!node)
          return void refuse(req, reply, { code: 404, reason: 'unknown_node', message: 'the account has no node with this nodeId' });
        // The event is this request's own object (readEvent made it): named in place, not copied.
        event.nodeName = node.name;
        let stored: IngestResult | Promise<IngestResult>;
        try {
          stored = deps.ingest(event);
        } catch (err) {
          return storeFailed(reply, event, err);
        }
        if (!isPromise(stored)) return answer(reply, event, stored);
        stored.then(
          (result) => answer(reply, event, result),
          (err: unknown) => storeFailed(reply, event, err),
        );
      } catch (err) {
        fail(reply, err);
      }
    };

    const storeFailed = (reply: FastifyReply, event: ServiceEvent, err: unknown): void => {
      const code = (err as { code?: string } | undefined)?.code;
      if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') return fail(reply, err); // the error handler answers store_busy
      // Not stored, so not accepted: the service must redeliver. Never a 500 that repeats forever.
      deps.metrics?.webhooks.inc({ outcome: 'refused', reason: 'store_failed' });
      log.error({ err, nodeId: event.nodeId }, 'webhook not stored: storing the event failed');
      reply
        .code(503)
        .header('retry-after', '5')
        .send({ error: 'store_failed', message: 'the event could not be stored right now; redeliver it later' });
    };

    const answer = (reply: FastifyReply, event: ServiceEvent, result: IngestResult): void => {
      try {
        if (result.duplicate) {
          deps.metrics?.webhooks.inc({ outcome: 'duplicate', reason: 'redelivery' });
          log.info({ nodeId: event.nodeId, eventType: event.eventType }, 'webhook redelivery acknowledged');
          return void reply.code(200).type(JSON_TYPE).send(DUPLICATE_BODY);
        }
        deps.metrics?.webhooks.inc({ outcome: 'accepted', reason: 'ok' });
        // debug, not info: one line per event is most of the logging cost at 1,000 events/s; the
        // metric counts them, and refusals and redeliveries are still logged.
        log.debug({ nodeId: event.nodeId, eventType: event.eventType, status: event.status, eventId: result.eventId }, 'webhook accepted');
        // Written out rather than serialized by fastify: the same bytes as `{ ok: true, eventId }`.
        const id = result.eventId;
        reply
          .code(202)
          .type(JSON_TYPE)
          .send(id === undefined ? '{"ok":true}' : `{"ok":true,"eventId":${JSON.stringify(id)}}`);
      } catch (err) {
        fail(reply, err);
      }
    };

    app.post('/webhooks/service', { bodyLimit }, handle);
    app.post<{ Params: { nodeId: string } }>('/webhooks/service/:nodeId', { bodyLimit }, handle);
  };
}
