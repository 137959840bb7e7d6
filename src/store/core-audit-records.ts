/** The audit trail (core_audit): who did what, where, with which outcome. Arguments arrive redacted. */
import type { Db } from './database.js';

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
  insert(row: Omit<AuditRow, 'id'>): number;
  latest(opts: { node?: string; limit: number }): AuditRow[];
  query(q: AuditQuery): AuditRow[];
  /** Deletes the records older than `before` (ISO time); returns how many. */
  prune(before: string): number;
}

const COLUMNS = `id, at, actor_platform AS actorPlatform, actor_id AS actorId, actor_name AS actorName,
  place_platform AS placePlatform, place_channel AS placeChannel, path, node, node_id AS nodeId,
  args_json AS argsJson, outcome, reason`;

export function createAuditStore(db: Db): AuditStore {
  const insertQ = db.prepare(
    `INSERT INTO core_audit (at, actor_platform, actor_id, actor_name, place_platform, place_channel, path, node, node_id, args_json, outcome, reason)
     VALUES (@at, @actorPlatform, @actorId, @actorName, @placePlatform, @placeChannel, @path, @node, @nodeId, @argsJson, @outcome, @reason)`,
  );
  const latestQ = db.prepare(`SELECT ${COLUMNS} FROM core_audit ORDER BY id DESC LIMIT ?`);
  const latestNodeQ = db.prepare(
    `SELECT ${COLUMNS} FROM core_audit WHERE node = @node OR node_id = @node OR lower(node) = lower(@node) ORDER BY id DESC LIMIT @limit`,
  );
  const pruneQ = db.prepare('DELETE FROM core_audit WHERE at < ?');
  // One statement per combination of filters in use, prepared once.
  const queries = new Map<string, ReturnType<Db['prepare']>>();
  type Filter = 'node' | 'user' | 'action' | 'outcome' | 'since';
  const WHERE: Record<Filter, string> = {
    node: '(node = @node OR node_id = @node OR lower(node) = lower(@node))',
    user: "(actor_platform || ':' || actor_id = @user OR actor_id = @user)",
    action: '(path = @action OR args_json LIKE @actionArg)',
    outcome: 'outcome = @outcome',
    since: 'at >= @since',
  };
  return {
    query(q) {
      const used = (Object.keys(WHERE) as Filter[]).filter((k) => q[k] !== undefined);
      const sig = used.join(',');
      let stmt = queries.get(sig);
      if (!stmt) {
        stmt = db.prepare(`SELECT ${COLUMNS} FROM core_audit ${used.length ? `WHERE ${used.map((k) => WHERE[k]).join(' AND ')}` : ''} ORDER BY id DESC LIMIT @limit`);
        queries.set(sig, stmt);
      }
      const params: Record<string, unknown> = { limit: q.limit };
      for (const k of used) params[k] = q[k];
      // An approval request is recorded as `approval request` with the action among its arguments.
      if (q.action !== undefined) params.actionArg = `%"action":"${q.action.replace(/ /g, '.').replace(/[%_"\\]/g, '')}"%`;
      return stmt.all(params) as AuditRow[];
    },
    prune: (before) => pruneQ.run(before).changes,
    insert: (row) => Number(insertQ.run(row).lastInsertRowid),
    latest: ({ node, limit }) =>
      (node ? latestNodeQ.all({ node, limit }) : latestQ.all(limit)) as AuditRow[],
  };
}
