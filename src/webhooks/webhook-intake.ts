/**
 * What the webhook route does with a request's body once it has read it: the checks, in this
 * order, then the store, then the answer.
 *   signature valid (401; 503 when no key can be had) -> JSON no deeper than 64 (400) -> JSON (400)
 *   -> shape: a string nodeId (400) -> not older than the retention (400 `stale`)
 *   -> path nodeId equals payload nodeId (403) -> the node belongs to the account (404; 503
 *   when the node list cannot be fetched) -> stored durably (202, or 200 `{duplicate:true}`).
 *
 * Synchronous up to the store, awaiting only what really is asynchronous: with the key and the
 * node list cached (every request but the first few), verification and the node look-up answer
 * at once, so the only promise of a request is the store's. Nothing is done on this path that
 * the 2xx does not promise: the counters are bound once, the accepted event's debug line is
 * built only when debug is on, and routing is the outbox worker's, after the answer.
 */
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics.js';
import { KeyUnavailableError } from './key-cache.js';
import type { NodeDirectory } from './node-directory.js';
import { readEvent, type ServiceEvent } from './read-event.js';
import { jsonDeeperThan } from './event-time.js';

/** Deeper JSON is refused with 400 before it is parsed or stored (it would overflow the stack). */
export const WEBHOOK_MAX_JSON_DEPTH = 64;
/** Events older than this (the dedupe retention) are refused: their dedupe key may be gone. */
export const WEBHOOK_MAX_EVENT_AGE_MS = 30 * 24 * 3600_000;

export interface IngestResult {
  duplicate: boolean;
  eventId?: number;
}

/** Stores an event as `ingest` does and calls back once: `onStored` after the commit, or `onError`. */
export type IngestWith = (
  event: ServiceEvent & { nodeName?: string },
  onStored: (result: IngestResult) => void,
  onError: (err: unknown) => void,
) => void;

/** A refusal; `retryAfter` (seconds) when the service should redeliver later. */
export type Refusal = { code: number; reason: string; message: string; retryAfter?: string };

/** How a request is answered: the route's HTTP side (webhook-routes.ts) implements it. */
export interface Answerer<R> {
  /** A refusal: logged with its reason (never the body), counted, and sent as `{error, message}`. */
  refuse(req: R, r: Refusal): void;
  /** An unexpected error: store_busy (503) for a locked database, else 500. */
  fail(req: R, err: unknown): void;
  /** The success answers, pre-serialized. */
  send(req: R, code: number, body: string): void;
}

export interface IntakeDeps {
  keys: { verify(rawBody: Buffer, signature: string): boolean | Promise<boolean> };
  nodes: Pick<NodeDirectory, 'lookup'> & Partial<Pick<NodeDirectory, 'cached'>>;
  ingest(event: ServiceEvent & { nodeName?: string }): IngestResult | Promise<IngestResult>;
  /** `ingest` answered by callbacks (no promise per event), used instead when given; see WebhookRouteDeps. */
  ingestWith?: IngestWith;
  log: Logger;
  metrics?: Metrics;
  maxAgeMs: number;
  now: () => number;
}

const DUPLICATE_BODY = JSON.stringify({ ok: true, duplicate: true });

const isPromise = <T>(v: T | Promise<T>): v is Promise<T> => typeof (v as { then?: unknown } | null)?.then === 'function';

/** `intake(req, raw, signature, pathNodeId)`: checks, stores and answers one event. */
export function createIntake<R>(deps: IntakeDeps, a: Answerer<R>) {
  const { log, maxAgeMs, now } = deps;
  // Bound once: a labelled inc() would build a labels object per event.
  const accepted = deps.metrics?.webhooks.labels('accepted', 'ok');
  const duplicate = deps.metrics?.webhooks.labels('duplicate', 'redelivery');
  // Accepted events are counted once per batch answered (the group commit answers a burst in one
  // go), not once each: the count lands in a microtask, before any other I/O is handled.
  let acceptedUncounted = 0;
  const countAccepted = () => {
    accepted?.inc(acceptedUncounted);
    acceptedUncounted = 0;
  };

  const verifyFailed = (req: R, err: unknown): void => {
    if (err instanceof KeyUnavailableError) {
      return a.refuse(req, { code: 503, reason: 'key_unavailable', message: `${err.message}; the service should redeliver later` });
    }
    a.fail(req, err);
  };

  const verifiedThen = (req: R, raw: Buffer, valid: boolean, expected: string | undefined): void => {
    try {
      if (!valid)
        return a.refuse(req, { code: 401, reason: 'bad_signature', message: 'the signature does not verify with the account webhook key' });
      if (jsonDeeperThan(raw, WEBHOOK_MAX_JSON_DEPTH)) {
        return a.refuse(req, {
          code: 400,
          reason: 'too_deep',
          message: `the JSON is nested more than ${WEBHOOK_MAX_JSON_DEPTH} levels deep`,
        });
      }
      let text = raw.toString('utf8');
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1); // a byte order mark is not JSON
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        return a.refuse(req, { code: 400, reason: 'not_json', message: 'the body is not JSON' });
      }
      // The text goes with the event: it is stored as it came (valid JSON: it was just parsed).
      const read = readEvent(json, raw, text);
      if (!read.ok) return a.refuse(req, { code: read.reason === 'node_mismatch' ? 403 : 400, reason: read.reason, message: read.message });
      const event = read.event;
      const stampedMs = event.eventMs;
      if (stampedMs !== undefined && stampedMs < now() - maxAgeMs) {
        // Its dedupe key may already be pruned: accepting it could post a replay a second time.
        return a.refuse(req, {
          code: 400,
          reason: 'stale',
          message: `the event is dated ${event.eventTimestamp}, older than the ${Math.round(maxAgeMs / 86_400_000)}-day retention; it is not stored`,
        });
      }
      if (expected !== undefined && expected !== event.nodeId) {
        return a.refuse(req, { code: 403, reason: 'node_mismatch', message: 'the payload nodeId differs from the node of this URL' });
      }
      const known = deps.nodes.cached?.(event.nodeId);
      if (known) return found(req, event, known);
      deps.nodes.lookup(event.nodeId).then(
        (node) => found(req, event, node),
        (err: unknown) => {
          log.warn({ err }, 'webhook: could not list the account nodes');
          a.refuse(req, {
            code: 503,
            reason: 'node_lookup_failed',
            message: 'the node list of the account could not be fetched; redeliver later',
          });
        },
      );
    } catch (err) {
      a.fail(req, err);
    }
  };

  const found = (req: R, event: ServiceEvent & { nodeName?: string }, node: { name: string } | undefined): void => {
    try {
      if (!node) return a.refuse(req, { code: 404, reason: 'unknown_node', message: 'the account has no node with this nodeId' });
      // The event is this request's own object (readEvent made it): named in place, not copied.
      event.nodeName = node.name;
      if (deps.ingestWith) {
        return deps.ingestWith(
          event,
          (result) => answer(req, event, result),
          (err) => notStored(req, event, err),
        );
      }
      let stored: IngestResult | Promise<IngestResult>;
      try {
        stored = deps.ingest(event);
      } catch (err) {
        return notStored(req, event, err);
      }
      if (!isPromise(stored)) return answer(req, event, stored);
      stored.then(
        (result) => answer(req, event, result),
        (err: unknown) => notStored(req, event, err),
      );
    } catch (err) {
      a.fail(req, err);
    }
  };

  const notStored = (req: R, event: ServiceEvent, err: unknown): void => {
    const code = (err as { code?: string } | undefined)?.code;
    if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') return a.fail(req, err); // answered store_busy
    // Not stored, so not accepted: the service must redeliver. Never a 500 that repeats forever.
    // (Counted by the refusal.)
    log.error({ err, nodeId: event.nodeId }, 'webhook not stored: storing the event failed');
    a.refuse(req, {
      code: 503,
      reason: 'store_failed',
      message: 'the event could not be stored right now; redeliver it later',
      retryAfter: '5',
    });
  };

  const answer = (req: R, event: ServiceEvent, result: IngestResult): void => {
    try {
      if (result.duplicate) {
        duplicate?.inc();
        log.info({ nodeId: event.nodeId, eventType: event.eventType }, 'webhook redelivery acknowledged');
        return a.send(req, 200, DUPLICATE_BODY);
      }
      if (accepted && acceptedUncounted++ === 0) queueMicrotask(countAccepted);
      // debug, not info: one line per event is most of the logging cost at 1,000 events/s; the
      // metric counts them, and refusals and redeliveries are still logged.
      if (log.isLevelEnabled('debug'))
        log.debug({ nodeId: event.nodeId, eventType: event.eventType, status: event.status, eventId: result.eventId }, 'webhook accepted');
      // The same bytes as `{ ok: true, eventId }` serialized.
      const id = result.eventId;
      a.send(req, 202, id === undefined ? '{"ok":true}' : `{"ok":true,"eventId":${JSON.stringify(id)}}`);
    } catch (err) {
      a.fail(req, err);
    }
  };

  return (req: R, raw: Buffer, signature: string, expected: string | undefined): void => {
    let verified: boolean | Promise<boolean>;
    try {
      verified = deps.keys.verify(raw, signature);
    } catch (err) {
      return verifyFailed(req, err);
    }
    if (typeof verified === 'boolean') return verifiedThen(req, raw, verified, expected);
    verified.then(
      (valid) => verifiedThen(req, raw, valid, expected),
      (err: unknown) => verifyFailed(req, err),
    );
  };
}
