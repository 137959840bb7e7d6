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

export interface AuditStore {
  insert(row: Omit<AuditRow, 'id'>): number;
  latest(opts: { node?: string; limit: number }): AuditRow[];
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
  return {
    insert: (row) => Number(insertQ.run(row).lastInsertRowid),
    latest: ({ node, limit }) =>
      (node ? latestNodeQ.all({ node, limit }) : latestQ.all(limit)) as AuditRow[],
  };
}
