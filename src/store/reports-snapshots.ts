/**
 * Report snapshots: what the last balance or channel report of a node showed, so the next
 * one can show the change. Amounts inside `data` are decimal strings (u64-safe JSON).
 */
import type { AnyDb } from './database.js';

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
  latest<T>(nodeId: string, kind: SnapshotKind, scope?: string): Promise<StoredSnapshot<T> | undefined>;
  /** When the node's last report of any kind was taken, asked in chat or scheduled (the dashboard's "Last report"). */
  lastTakenAt(nodeId: string): Promise<Date | undefined>;
  /**
   * The snapshots of that node and kind taken at or after `since`, oldest first, whatever their
   * scope (what a chart draws: every report of the node is a point of its history).
   */
  history<T>(nodeId: string, kind: SnapshotKind, since: Date): Promise<Array<StoredSnapshot<T>>>;
  /**
   * Stores a snapshot and deletes those of that node and kind older than the retention
   * (SNAPSHOT_RETENTION_DAYS), except the latest of each scope: a schedule's baseline (its own
   * last run) and the last chat report stay, however old, so the next report still shows the change.
   */
  save<T>(snapshot: StoredSnapshot<T>): Promise<void>;
  /** As save, for many snapshots in one transaction (a report over all nodes: one commit, not one per node). */
  saveMany(snapshots: ReadonlyArray<StoredSnapshot<unknown>>): Promise<void>;
}

export interface SnapshotRepoOptions {
  /** Days a snapshot is kept, per node and kind. Default 35 (SNAPSHOT_RETENTION_DAYS). */
  retentionDays?: number;
  /** The clock (ms since the epoch) the retention counts from. Default Date.now. */
  now?: () => number;
}

const DAY_MS = 86_400_000;

interface Row {
  node_id: string;
  kind: SnapshotKind;
  taken_at: string;
  data: string;
  scope: string;
}

const fromRow = <T>(row: Row): StoredSnapshot<T> => ({
  nodeId: row.node_id,
  kind: row.kind,
  takenAt: new Date(row.taken_at),
  data: JSON.parse(row.data) as T,
  scope: row.scope,
});

export function createSnapshotRepo(db: AnyDb, opts: SnapshotRepoOptions = {}): SnapshotRepo {
  const retentionMs = Math.max(1, opts.retentionDays ?? 35) * DAY_MS;
  const now = opts.now ?? Date.now;
  return {
    async latest<T>(nodeId: string, kind: SnapshotKind, scope = '') {
      const row = await db.get<Row>(
        'SELECT node_id, kind, taken_at, data, scope FROM report_snapshots WHERE node_id = ? AND kind = ? AND scope = ? ORDER BY id DESC LIMIT 1',
        [nodeId, kind, scope],
      );
      return row ? fromRow<T>(row) : undefined;
    },
    async lastTakenAt(nodeId: string) {
      const row = await db.get<{ taken_at: string }>(
        'SELECT taken_at FROM report_snapshots WHERE node_id = ? ORDER BY taken_at DESC, id DESC LIMIT 1',
        [nodeId],
      );
      return row ? new Date(row.taken_at) : undefined;
    },
    async history<T>(nodeId: string, kind: SnapshotKind, since: Date) {
      const rows = await db.all<Row>(
        'SELECT node_id, kind, taken_at, data, scope FROM report_snapshots WHERE node_id = ? AND kind = ? AND taken_at >= ? ORDER BY taken_at, id',
        [nodeId, kind, since.toISOString()],
      );
      return rows.map((row) => fromRow<T>(row));
    },
    save(s) {
      return saveMany([s]);
    },
    saveMany,
  };

  async function saveMany(list: ReadonlyArray<StoredSnapshot<unknown>>): Promise<void> {
    if (!list.length) return;
    const cutoff = new Date(now() - retentionMs).toISOString();
    await db.tx(async () => {
      for (const s of list) {
        await db.run('INSERT INTO report_snapshots (node_id, kind, taken_at, data, scope) VALUES (?, ?, ?, ?, ?)', [
          s.nodeId,
          s.kind,
          s.takenAt.toISOString(),
          JSON.stringify(s.data),
          s.scope ?? '',
        ]);
        // The latest of each scope is what `latest` answers (a schedule's baseline): never pruned.
        await db.run(
          `DELETE FROM report_snapshots WHERE node_id = ? AND kind = ? AND taken_at < ? AND id NOT IN
             (SELECT MAX(id) FROM report_snapshots WHERE node_id = ? AND kind = ? GROUP BY scope)`,
          [s.nodeId, s.kind, cutoff, s.nodeId, s.kind],
        );
      }
    });
  }
}
