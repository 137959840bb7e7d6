/** The audit trail (core_audit): who did what, where, with which outcome. Arguments arrive redacted. */
import type { AnyDb } from './database.js';

export interface AuditRow {
  id: number;
  at: string;
  actorPlatform: string;
  actorId: string;
  actorName: string | null;
  placePlatform: string;
  placeChannel: string;
  path: string;
  node: string | null;
  nodeId: string | null;
  argsJson: string;
  outcome: 'ok' | 'failed' | 'refused';
  reason: string | null;
}

/** Filters of `audit`: every one given must match. `action` is a command path (`pay send`). */
export interface AuditQuery {
  node?: string;
  /** `platform:userId`, or a bare user id. */
  user?: string;
  action?: string;
  outcome?: 'ok' | 'failed' | 'refused';
  /** ISO time: at or after. */
  since?: string;
  limit: number;
}

export interface AuditStore {
  insert(row: Omit<AuditRow, 'id'>): Promise<number>;
  latest(opts: { node?: string; limit: number }): Promise<AuditRow[]>;
  query(q: AuditQuery): Promise<AuditRow[]>;
  /** Deletes the records older than `before` (ISO time); returns how many. */
  prune(before: string): Promise<number>;
}

const COLUMNS = `id, at, actor_platform AS "actorPlatform", actor_id AS "actorId", actor_name AS "actorName",
  place_platform AS "placePlatform", place_channel AS "placeChannel", path, node, node_id AS "nodeId",
  args_json AS "argsJson", outcome, reason`;

type Filter = 'node' | 'user' | 'action' | 'outcome' | 'since';
const WHERE: Record<Filter, string> = {
  node: '(node = @node OR node_id = @node OR lower(node) = lower(@node))',
  user: "(actor_platform || ':' || actor_id = @user OR actor_id = @user)",
  action: '(path = @action OR args_json LIKE @actionArg)',
  outcome: 'outcome = @outcome',
  since: 'at >= @since',
};

export function createAuditStore(db: AnyDb): AuditStore {
  return {
    async query(q) {
      const used = (Object.keys(WHERE) as Filter[]).filter((k) => q[k] !== undefined);
      // The text depends only on which filters are in use, so each engine prepares a few shapes.
      const sql = `SELECT ${COLUMNS} FROM core_audit ${used.length ? `WHERE ${used.map((k) => WHERE[k]).join(' AND ')}` : ''} ORDER BY id DESC LIMIT @limit`;
      const params: Record<string, unknown> = { limit: q.limit };
      for (const k of used) params[k] = q[k];
      // An approval request is recorded as `approval request` with the action among its arguments.
      if (q.action !== undefined) params.actionArg = `%"action":"${q.action.replace(/ /g, '.').replace(/[%_"\\]/g, '')}"%`;
      return db.all<AuditRow>(sql, params);
    },
    prune: async (before) => (await db.run('DELETE FROM core_audit WHERE at < ?', [before])).changes,
    insert: async (row) => {
      const r = await db.run(
        `INSERT INTO core_audit (at, actor_platform, actor_id, actor_name, place_platform, place_channel, path, node, node_id, args_json, outcome, reason)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
        [
          row.at,
          row.actorPlatform,
          row.actorId,
          row.actorName,
          row.placePlatform,
          row.placeChannel,
          row.path,
          row.node,
          row.nodeId,
          row.argsJson,
          row.outcome,
          row.reason,
        ],
      );
      return Number(r.rows[0].id);
    },
    latest: ({ node, limit }) =>
      node
        ? db.all<AuditRow>(
            `SELECT ${COLUMNS} FROM core_audit WHERE node = @node OR node_id = @node OR lower(node) = lower(@node) ORDER BY id DESC LIMIT @limit`,
            { node, limit },
          )
        : db.all<AuditRow>(`SELECT ${COLUMNS} FROM core_audit ORDER BY id DESC LIMIT ?`, [limit]),
  };
}
