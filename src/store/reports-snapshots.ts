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
  /**
   * Stores a snapshot and deletes those of that node and kind older than the retention
   * (SNAPSHOT_RETENTION_DAYS), except the latest of each scope: a schedule's baseline (its own
   * last run) and the last chat report stay, however old, so the next report still shows the change.
   */
  save<T>(snapshot: StoredSnapshot<T>): void;
}

export interface SnapshotRepoOptions {
  /** Days a snapshot is kept, per node and kind. Default 35 (SNAPSHOT_RETENTION_DAYS). */
  retentionDays?: number;
  /** The clock (ms since the epoch) the retention counts from. Default Date.now. */
  now?: () => number;
}

const DAY_MS = 86_400_000;

export function createSnapshotRepo(db: Db, opts: SnapshotRepoOptions = {}): SnapshotRepo {
  const retentionMs = Math.max(1, opts.retentionDays ?? 35) * DAY_MS;
  const now = opts.now ?? Date.now;
  const latestStmt = db.prepare(
    'SELECT node_id, kind, taken_at, data, scope FROM report_snapshots WHERE node_id = ? AND kind = ? AND scope = ? ORDER BY id DESC LIMIT 1',
  );
  const historyStmt = db.prepare(
    'SELECT node_id, kind, taken_at, data FROM report_snapshots WHERE node_id = ? AND kind = ? AND taken_at >= ? ORDER BY taken_at, id',
  );
  const insertStmt = db.prepare('INSERT INTO report_snapshots (node_id, kind, taken_at, data, scope) VALUES (?, ?, ?, ?, ?)');
  // The latest of each scope is what `latest` answers (a schedule's baseline): never pruned.
  const pruneStmt = db.prepare(
    `DELETE FROM report_snapshots WHERE node_id = ? AND kind = ? AND taken_at < ? AND id NOT IN
       (SELECT MAX(id) FROM report_snapshots WHERE node_id = ? AND kind = ? GROUP BY scope)`,
  );
  const saveTx = db.transaction((s: StoredSnapshot<unknown>) => {
    const scope = s.scope ?? '';
    insertStmt.run(s.nodeId, s.kind, s.takenAt.toISOString(), JSON.stringify(s.data), scope);
    const cutoff = new Date(now() - retentionMs).toISOString();
    pruneStmt.run(s.nodeId, s.kind, cutoff, s.nodeId, s.kind);
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
