/**
 * Report snapshots: what the last balance or channel report of a node showed, so the next
 * one can show the change. Amounts inside `data` are decimal strings (u64-safe JSON).
 */
import type { Db } from './database.js';

export type SnapshotKind = 'balance' | 'channels';

export interface StoredSnapshot<T> {
  nodeId: string;
  kind: SnapshotKind;
  takenAt: Date;
  data: T;
  /**
   * Whose baseline this is: '' (default) for reports asked in chat, `schedule:<id>` for one
   * schedule's runs, so a schedule shows the change since its own last report.
   */
  scope?: string;
}

export interface SnapshotRepo {
  /** The most recent snapshot of that node and kind, if any. */
  latest<T>(nodeId: string, kind: SnapshotKind, scope?: string): StoredSnapshot<T> | undefined;
  /**
   * The snapshots of that node and kind taken at or after `since`, oldest first, whatever their
   * scope (what a chart draws: every report of the node is a point of its history).
   */
  history<T>(nodeId: string, kind: SnapshotKind, since: Date): Array<StoredSnapshot<T>>;
  /** Stores a snapshot and keeps only the newest `keep` of that node, kind and scope. */
  save<T>(snapshot: StoredSnapshot<T>): void;
}

export function createSnapshotRepo(db: Db, opts: { keep?: number } = {}): SnapshotRepo {
  // Enough for 30 days of charts at a report every hour.
  const keep = Math.max(1, opts.keep ?? 750);
  const latestStmt = db.prepare(
    'SELECT node_id, kind, taken_at, data, scope FROM report_snapshots WHERE node_id = ? AND kind = ? AND scope = ? ORDER BY id DESC LIMIT 1',
  );
  const historyStmt = db.prepare(
    'SELECT node_id, kind, taken_at, data FROM report_snapshots WHERE node_id = ? AND kind = ? AND taken_at >= ? ORDER BY taken_at, id',
  );
  const insertStmt = db.prepare('INSERT INTO report_snapshots (node_id, kind, taken_at, data, scope) VALUES (?, ?, ?, ?, ?)');
  const pruneStmt = db.prepare(
    `DELETE FROM report_snapshots WHERE node_id = ? AND kind = ? AND scope = ? AND id NOT IN
       (SELECT id FROM report_snapshots WHERE node_id = ? AND kind = ? AND scope = ? ORDER BY id DESC LIMIT ?)`,
  );
  const saveTx = db.transaction((s: StoredSnapshot<unknown>) => {
    const scope = s.scope ?? '';
    insertStmt.run(s.nodeId, s.kind, s.takenAt.toISOString(), JSON.stringify(s.data), scope);
    pruneStmt.run(s.nodeId, s.kind, scope, s.nodeId, s.kind, scope, keep);
  });
  return {
    latest<T>(nodeId: string, kind: SnapshotKind, scope = '') {
      const row = latestStmt.get(nodeId, kind, scope) as { node_id: string; kind: SnapshotKind; taken_at: string; data: string; scope: string } | undefined;
      if (!row) return undefined;
      return { nodeId: row.node_id, kind: row.kind, takenAt: new Date(row.taken_at), data: JSON.parse(row.data) as T, scope: row.scope };
    },
    history<T>(nodeId: string, kind: SnapshotKind, since: Date) {
      const rows = historyStmt.all(nodeId, kind, since.toISOString()) as Array<{ node_id: string; kind: SnapshotKind; taken_at: string; data: string }>;
      return rows.map((row) => ({ nodeId: row.node_id, kind: row.kind, takenAt: new Date(row.taken_at), data: JSON.parse(row.data) as T }));
    },
    save(snapshot) {
      saveTx(snapshot);
    },
  };
}
