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

export const WEBHOOK_BODY_LIMIT = 1024 * 1024;
/** Always accepted, whatever WEBHOOK_SIGNATURE_HEADER says (the public service sends it). */
export const THUNDERSTACK_SIGNATURE_HEADER = 'X-ThunderStack-Signature';

export interface IngestResult {
  duplicate: boolean;
  eventId?: number;
}

export interface WebhookRouteDeps {
  /** Verifies a signature over the raw body (a KeyCache). */
  keys: { verify(rawBody: Buffer, signature: string): Promise<boolean> };
  /** Knows the account's nodes (createNodeDirectory). */
  nodes: NodeDirectory;
  /** Stores the event durably (and routes it); must be synchronous-durable when it returns. */
  ingest(event: ServiceEvent & { nodeName?: string }): IngestResult | Promise<IngestResult>;
  /** `config.WEBHOOK_SIGNATURE_HEADER`; default `X-Service-Signature`. */
  signatureHeader?: string;
  logger: Logger;
  metrics?: Metrics;
  /** Default 1 MiB. */
  bodyLimit?: number;
}

type Refusal = { code: number; reason: string; message: string };

export function webhookRoutes(deps: WebhookRouteDeps): FastifyPluginAsync {
  const log = deps.logger.child({ room: 'webhooks' });
  const headers = [...new Set([(deps.signatureHeader ?? 'X-Service-Signature').toLowerCase(), THUNDERSTACK_SIGNATURE_HEADER.toLowerCase()])];
  const bodyLimit = deps.bodyLimit ?? WEBHOOK_BODY_LIMIT;

  const refuse = (req: FastifyRequest, reply: FastifyReply, r: Refusal) => {
    deps.metrics?.webhooks.inc({ outcome: 'refused', reason: r.reason });
    log.warn({ reason: r.reason, status: r.code, path: req.url, ip: req.ip }, `webhook refused: ${r.message}`);
    return reply.code(r.code).send({ error: r.reason, message: r.message });
  };

  return async (app) => {
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit }, (_req, body, done) => done(null, body));

    app.setErrorHandler((err: { statusCode?: number; code?: string; message: string }, req, reply) => {
      if (err.code === 'SQLITE_BUSY' || err.code === 'SQLITE_LOCKED') {
        // The store is locked by someone else: not accepted, so the service must redeliver.
        deps.metrics?.webhooks.inc({ outcome: 'refused', reason: 'store_busy' });
        log.error({ code: err.code }, 'webhook not stored: the database is locked');
        return reply.code(503).header('retry-after', '5').send({ error: 'store_busy', message: 'the event could not be stored right now; redeliver it later' });
      }
      const status = err.statusCode ?? 500;
      if (status === 413) return refuse(req, reply, { code: 413, reason: 'too_large', message: `the body is over ${bodyLimit} bytes` });
      if (status >= 400 && status < 500) return refuse(req, reply, { code: status, reason: 'bad_request', message: err.message });
      deps.metrics?.webhooks.inc({ outcome: 'error', reason: 'internal' });
      log.error({ err }, 'webhook handling failed');
      return reply.code(500).send({ error: 'internal', message: 'the event could not be handled; it will be accepted on redelivery' });
    });

    const handle = async (req: FastifyRequest<{ Params: { nodeId?: string } }>, reply: FastifyReply) => {
      const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      if (raw.length > bodyLimit) return refuse(req, reply, { code: 413, reason: 'too_large', message: `the body is over ${bodyLimit} bytes` });

      let signature: string | undefined;
      for (const h of headers) {
        const v = req.headers[h];
        const s = Array.isArray(v) ? v[0] : v;
        if (s && s.trim()) {
          signature = s;
          break;
        }
      }
      if (!signature) return refuse(req, reply, { code: 401, reason: 'missing_signature', message: `no ${headers.join(' or ')} header` });
      let valid: boolean;
      try {
        valid = await deps.keys.verify(raw, signature);
      } catch (err) {
        if (err instanceof KeyUnavailableError) {
          return refuse(req, reply, { code: 503, reason: 'key_unavailable', message: `${err.message}; the service should redeliver later` });
        }
        throw err;
      }
      if (!valid) return refuse(req, reply, { code: 401, reason: 'bad_signature', message: 'the signature does not verify with the account webhook key' });

      let json: unknown;
      try {
        json = JSON.parse(raw.toString('utf8').replace(/^\uFEFF/, ''));
      } catch {
        return refuse(req, reply, { code: 400, reason: 'not_json', message: 'the body is not JSON' });
      }
      const read = readEvent(json, raw);
      if (!read.ok) return refuse(req, reply, { code: read.reason === 'node_mismatch' ? 403 : 400, reason: read.reason, message: read.message });
      const event = read.event;
      const expected = req.params.nodeId;
      if (expected !== undefined && expected !== event.nodeId) {
        return refuse(req, reply, { code: 403, reason: 'node_mismatch', message: 'the payload nodeId differs from the node of this URL' });
      }

      let node;
      try {
        node = await deps.nodes.lookup(event.nodeId);
      } catch (err) {
        log.warn({ err }, 'webhook: could not list the account nodes');
        return refuse(req, reply, { code: 503, reason: 'node_lookup_failed', message: 'the node list of the account could not be fetched; redeliver later' });
      }
      if (!node) return refuse(req, reply, { code: 404, reason: 'unknown_node', message: 'the account has no node with this nodeId' });

      const result = await deps.ingest({ ...event, nodeName: node.name });
      if (result.duplicate) {
        deps.metrics?.webhooks.inc({ outcome: 'duplicate', reason: 'redelivery' });
        log.info({ nodeId: event.nodeId, eventType: event.eventType }, 'webhook redelivery acknowledged');
        return reply.code(200).send({ ok: true, duplicate: true });
      }
      deps.metrics?.webhooks.inc({ outcome: 'accepted', reason: 'ok' });
      // debug, not info: one line per event is most of the logging cost at 1,000 events/s; the
      // metric counts them, and refusals and redeliveries are still logged.
      log.debug({ nodeId: event.nodeId, eventType: event.eventType, status: event.status, eventId: result.eventId }, 'webhook accepted');
      return reply.code(202).send({ ok: true, eventId: result.eventId });
    };

    app.post('/webhooks/service', { bodyLimit }, handle);
    app.post<{ Params: { nodeId: string } }>('/webhooks/service/:nodeId', { bodyLimit }, handle);
  };
}
