/**
 * The shape of a service event (docs/reference/hosting-service.md, "Webhooks"), read leniently: only a
 * string `nodeId` is required; `eventType`, `eventTimestamp` and `details.status` are
 * taken when present, and an unknown `eventType` is kept as it came.
 */
import { createHash, hash } from 'node:crypto';

export interface ServiceEvent {
  nodeId: string;
  /** `NODE_STATUS_UPDATED`, or whatever the service sent (`UNKNOWN` when absent). */
  eventType: string;
  /** The node status the event reports, when it reports one. */
  status?: string;
  eventTimestamp?: string;
  /** `eventTimestamp` in ms, when it reads as a time: parsed once, for every step after (staleness, ordering, the stored key). */
  eventMs?: number;
  /** The whole parsed payload. */
  payload: Record<string, unknown>;
  /** The JSON text `payload` was parsed from, when readEvent was given it: stored as it came, not serialized again. */
  payloadText?: string;
  /** Derived from node, type, status, timestamp and details, or from the body when there is no timestamp. */
  dedupeKey: string;
}

export type ReadEventResult = { ok: true; event: ServiceEvent } | { ok: false; reason: string; message: string };

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v : undefined);

/** JSON with object keys sorted, so the same content gives the same text whatever the key order. */
function canonical(v: unknown, depth = 0): string {
  if (depth > 8) return '"…"';
  if (Array.isArray(v)) return `[${v.map((x) => canonical(x, depth + 1)).join(',')}]`;
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(o[k], depth + 1)}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

/**
 * The key a redelivery shares with the first delivery. With a timestamp: node, type, status,
 * timestamp and the event's `details` (timestamps may be whole seconds, and two different
 * operations of one node can complete in the same second: they must not pass for one event).
 * Without a timestamp: the body itself.
 */
export function dedupeKeyOf(
  rawBody: Buffer | string,
  f: { nodeId: string; eventType: string; status?: string; eventTimestamp?: string; details?: unknown },
): string {
  // One-shot (no Hash object): the usual case, an event with a timestamp, is one short string.
  if (f.eventTimestamp)
    return hash('sha256', ['v2', f.nodeId, f.eventType, f.status ?? '', f.eventTimestamp, canonical(f.details ?? {})].join('\u0000'));
  return createHash('sha256').update('body\u0000').update(rawBody).digest('hex');
}

/** Reads a parsed JSON body as an event, or says what is wrong with it; `text`, the JSON text `json` was parsed from. */
export function readEvent(json: unknown, rawBody: Buffer | string, text?: string): ReadEventResult {
  if (!json || typeof json !== 'object' || Array.isArray(json)) {
    return { ok: false, reason: 'bad_shape', message: 'the body must be a JSON object' };
  }
  const p = json as Record<string, unknown>;
  const details = p.details && typeof p.details === 'object' && !Array.isArray(p.details) ? (p.details as Record<string, unknown>) : {};
  const nodeId = str(p.nodeId);
  if (!nodeId) return { ok: false, reason: 'bad_shape', message: 'the body has no string nodeId' };
  const inner = str(details.nodeId);
  if (inner && inner !== nodeId) {
    return { ok: false, reason: 'node_mismatch', message: 'details.nodeId differs from nodeId' };
  }
  const eventType = str(p.eventType) ?? str(p.type) ?? 'UNKNOWN';
  const status = str(details.status) ?? str(p.status);
  const eventTimestamp = str(p.eventTimestamp) ?? str(p.timestamp);
  const eventMs = eventTimestamp === undefined ? NaN : Date.parse(eventTimestamp);
  return {
    ok: true,
    event: {
      nodeId,
      eventType,
      status,
      eventTimestamp,
      eventMs: Number.isFinite(eventMs) ? eventMs : undefined,
      payload: p,
      payloadText: text,
      dedupeKey: dedupeKeyOf(rawBody, { nodeId, eventType, status, eventTimestamp, details }),
    },
  };
}
