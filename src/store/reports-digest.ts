/**
 * What the daily digest reads: the bot's own records of a period, unchanged. Node events stored
 * by the webhook and the activity poller (notify_events), the incidents of one channel
 * (notify_incidents) and the upgrades and locks done through the bot (core_audit). Read-only:
 * the digest keeps no table of its own, so it can be asked for any day the records still hold.
 */
import type { AnyDb } from './database.js';

export interface DigestEventRow {
  nodeId: string;
  nodeName: string | null;
  eventType: string;
  status: string | null;
  /** When the bot stored it (ms since the epoch). */
  receivedAt: number;
  /** The stored payload, JSON. */
  payload: string;
}

export interface DigestIncidentRow {
  id: number;
  nodeId: string;
  nodeName: string | null;
  lastStatus: string;
  openedAt: number;
  resolvedAt: number | null;
}

export interface DigestAuditRow {
  path: string;
  node: string | null;
  nodeId: string | null;
  /** ISO time. */
  at: string;
}

export interface DigestSource {
  /** Events stored in [from, to) (ms), oldest first, at most `limit`. */
  events(from: number, to: number, limit: number): Promise<DigestEventRow[]>;
  /** The channel's incidents open at some time in [from, to): opened before `to`, not resolved before `from`. */
  incidents(platform: string, channelId: string, from: number, to: number): Promise<DigestIncidentRow[]>;
  /** Commands of `paths` that succeeded in [from, to) (ms), oldest first. */
  commands(paths: readonly string[], from: number, to: number): Promise<DigestAuditRow[]>;
}

export function createDigestSource(db: AnyDb): DigestSource {
  return {
    events: (from, to, limit) =>
      db
        .all<DigestEventRow>(
          `SELECT node_id AS "nodeId", node_name AS "nodeName", event_type AS "eventType", status, received_at AS "receivedAt", payload
           FROM notify_events WHERE received_at >= ? AND received_at < ? ORDER BY received_at, id LIMIT ?`,
          [from, to, limit],
        )
        .then((rows) => rows.map((r) => ({ ...r, receivedAt: Number(r.receivedAt) }))),
    incidents: (platform, channelId, from, to) =>
      db
        .all<DigestIncidentRow>(
          `SELECT id, node_id AS "nodeId", node_name AS "nodeName", last_status AS "lastStatus", opened_at AS "openedAt", resolved_at AS "resolvedAt"
           FROM notify_incidents
          WHERE platform = ? AND channel_id = ? AND opened_at < ? AND (resolved_at IS NULL OR resolved_at >= ?)
          ORDER BY opened_at, id`,
          [platform, channelId, to, from],
        )
        .then((rows) =>
          rows.map((r) => ({
            ...r,
            id: Number(r.id),
            openedAt: Number(r.openedAt),
            resolvedAt: r.resolvedAt === null ? null : Number(r.resolvedAt),
          })),
        ),
    commands: (paths, from, to) =>
      paths.length === 0
        ? Promise.resolve([])
        : db.all<DigestAuditRow>(
            `SELECT path, node, node_id AS "nodeId", at FROM core_audit
              WHERE outcome = 'ok' AND at >= ? AND at < ? AND path IN (${paths.map(() => '?').join(', ')})
              ORDER BY at, id`,
            [new Date(from).toISOString(), new Date(to).toISOString(), ...paths],
          ),
  };
}
