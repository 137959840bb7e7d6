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
}

export interface SnapshotRepo {
  /** The most recent snapshot of that node and kind, if any. */
  latest<T>(nodeId: string, kind: SnapshotKind): StoredSnapshot<T> | undefined;
  /** The snapshots of that node and kind taken at or after `since`, oldest first (what a chart draws). */
  history<T>(nodeId: string, kind: SnapshotKind, since: Date): Array<StoredSnapshot<T>>;
  /** Stores a snapshot and keeps only the newest `keep` of that node and kind. */
  save<T>(snapshot: StoredSnapshot<T>): void;
}

export function createSnapshotRepo(db: Db, opts: { keep?: number } = {}): SnapshotRepo {
  // Enough for 30 days of charts at a report every hour.
  const keep = Math.max(1, opts.keep ?? 750);
  const latestStmt = db.prepare(
    'SELECT node_id, kind, taken_at, data FROM report_snapshots WHERE node_id = ? AND kind = ? ORDER BY id DESC LIMIT 1',
  );
  const historyStmt = db.prepare(
    'SELECT node_id, kind, taken_at, data FROM report_snapshots WHERE node_id = ? AND kind = ? AND taken_at >= ? ORDER BY taken_at, id',
  );
  const insertStmt = db.prepare('INSERT INTO report_snapshots (node_id, kind, taken_at, data) VALUES (?, ?, ?, ?)');
  const pruneStmt = db.prepare(
    `DELETE FROM report_snapshots WHERE node_id = ? AND kind = ? AND id NOT IN
       (SELECT id FROM report_snapshots WHERE node_id = ? AND kind = ? ORDER BY id DESC LIMIT ?)`,
  );
  const saveTx = db.transaction((s: StoredSnapshot<unknown>) => {
    insertStmt.run(s.nodeId, s.kind, s.takenAt.toISOString(), JSON.stringify(s.data));
    pruneStmt.run(s.nodeId, s.kind, s.nodeId, s.kind, keep);
  });
  return {
    latest<T>(nodeId: string, kind: SnapshotKind) {
      const row = latestStmt.get(nodeId, kind) as { node_id: string; kind: SnapshotKind; taken_at: string; data: string } | undefined;
      if (!row) return undefined;
      return { nodeId: row.node_id, kind: row.kind, takenAt: new Date(row.taken_at), data: JSON.parse(row.data) as T };
    },
    history<T>(nodeId: string, kind: SnapshotKind, since: Date) {
      const rows = historyStmt.all(nodeId, kind, since.toISOString()) as Array<{ node_id: string; kind: SnapshotKind; taken_at: string; data: string }>;
      return rows.map((row) => ({ nodeId: row.node_id, kind: row.kind, takenAt: new Date(row.taken_at), data: JSON.parse(row.data) as T }));
    },
    save(snapshot) {
      saveTx(snapshot as StoredSnapshot<unknown>);
    },
  };
}
