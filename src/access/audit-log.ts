/** The audit trail: every change, and every refusal of one. Arguments are stored redacted. */
import type { AnyDb } from '../store/index.js';
import { createAuditStore, type AuditRow } from '../store/index.js';
import type { Actor, Place } from '../vocabulary/index.js';
import { silentLogger, type Logger } from '../log.js';
import { redact } from '../redact.js';

export type AuditOutcome = 'ok' | 'failed' | 'refused';

export interface AuditEntry {
  id: number;
  at: Date;
  actor: { platform: string; userId: string; displayName?: string };
  place: { platform: string; channelId: string };
  path: string;
  /** The node as typed (name or id), when the command named one. */
  node?: string;
  nodeId?: string;
  /** Arguments with secrets already replaced by `[redacted]`. */
  args: Record<string, string>;
  outcome: AuditOutcome;
  reason?: string;
}

/** What a caller records: the entry without its id, its time optional, and the whole actor and place. */
export type AuditRecordInput = Omit<AuditEntry, 'id' | 'at' | 'actor' | 'place'> & { at?: Date; actor: Actor; place: Place };

export interface AuditLog {
  record(entry: AuditRecordInput): Promise<AuditEntry>;
  /** Newest first. `node` matches the name or id. */
  latest(opts?: { node?: string; limit?: number }): Promise<AuditEntry[]>;
  /** Newest first, every filter given matching. `action` with dots or spaces (`pay.send`). */
  query(q: { node?: string; user?: string; action?: string; outcome?: AuditOutcome; since?: Date; limit?: number }): Promise<AuditEntry[]>;
  /** Deletes what is older than the retention; returns how many records went. */
  prune(): Promise<number>;
}

function fromRow(r: AuditRow): AuditEntry {
  let args: Record<string, string> = {};
  try {
    args = JSON.parse(r.argsJson) as Record<string, string>;
  } catch {
    /* keep empty */
  }
  return {
    id: r.id,
    at: new Date(r.at),
    actor: { platform: r.actorPlatform, userId: r.actorId, ...(r.actorName ? { displayName: r.actorName } : {}) },
    place: { platform: r.placePlatform, channelId: r.placeChannel },
    path: r.path,
    ...(r.node ? { node: r.node } : {}),
    ...(r.nodeId ? { nodeId: r.nodeId } : {}),
    args,
    outcome: r.outcome,
    ...(r.reason ? { reason: r.reason } : {}),
  };
}

export function createAuditLog(db: AnyDb, opts: { now: () => number; retentionDays?: number; logger?: Logger }): AuditLog {
  const store = createAuditStore(db);
  const now = () => new Date(opts.now());
  const retentionMs = (opts.retentionDays ?? 365) * 24 * 3600_000;
  const logger = opts.logger ?? silentLogger;
  let lastPrune = -Infinity;
  const prune = async () => {
    lastPrune = opts.now();
    try {
      return await store.prune(new Date(lastPrune - retentionMs).toISOString());
    } catch (e) {
      logger.warn({ err: e }, 'could not prune the audit trail');
      return 0;
    }
  };
  return {
    prune,
    query: async ({ node, user, action, outcome, since, limit = 50 }) =>
      (
        await store.query({
          node,
          user,
          action: action === undefined ? undefined : action.trim().replace(/\./g, ' '),
          outcome,
          since: since?.toISOString(),
          limit: Math.max(1, Math.min(limit, 5000)),
        })
      ).map(fromRow),
    async record(e) {
      // Records older than the retention go with the first record, then at most once an hour.
      if (opts.now() - lastPrune > 3600_000) await prune();
      const at = e.at ?? now();
      const row = {
        at: at.toISOString(),
        actorPlatform: e.actor.platform,
        actorId: e.actor.userId,
        actorName: e.actor.displayName ?? null,
        placePlatform: e.place.platform,
        placeChannel: e.place.channelId,
        path: e.path,
        node: e.node ?? null,
        nodeId: e.nodeId ?? null,
        // Redacted again here, whoever recorded it: a secret is masked by its shape whatever its name.
        argsJson: JSON.stringify(Object.fromEntries(Object.entries(e.args).map(([k, v]) => [k, redact(v)]))),
        outcome: e.outcome,
        reason: e.reason ? redact(e.reason).slice(0, 500) : null,
      };
      const id = await store.insert(row);
      return fromRow({ id, ...row });
    },
    latest: async ({ node, limit = 20 } = {}) => (await store.latest({ node, limit: Math.max(1, Math.min(limit, 500)) })).map(fromRow),
  };
}
