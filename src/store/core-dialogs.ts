/** Open dialogs (core_dialogs): which command a modal submission belongs to. Never holds the values typed. */
import type { AnyDb } from './database.js';
import { PENDING_COLUMNS, PENDING_SELECT, PENDING_VALUES, pendingParams, type PendingCommandRow } from './core-pending-commands.js';

export interface DialogRow extends PendingCommandRow {
  kind: 'secrets' | 'typed-name';
  usedAt: number | null;
}

export interface DialogStore {
  insert(row: Omit<DialogRow, 'usedAt'>): Promise<void>;
  get(id: string): Promise<DialogRow | undefined>;
  /** One guarded UPDATE: of concurrent submissions, exactly one claims the dialog. */
  claim(id: string, at: number): Promise<boolean>;
  deleteExpired(before: number): Promise<number>;
}

export function createDialogStore(db: AnyDb): DialogStore {
  return {
    insert: async (row) => {
      await db.run(`INSERT INTO core_dialogs (${PENDING_COLUMNS}, kind) VALUES (${PENDING_VALUES}, @kind)`, {
        ...pendingParams(row),
        kind: row.kind,
      });
    },
    get: (id) => db.get<DialogRow>(`SELECT ${PENDING_SELECT}, kind, used_at AS "usedAt" FROM core_dialogs WHERE id = ?`, [id]),
    claim: async (id, at) => (await db.run('UPDATE core_dialogs SET used_at = ? WHERE id = ? AND used_at IS NULL', [at, id])).changes > 0,
    deleteExpired: async (before) => (await db.run('DELETE FROM core_dialogs WHERE expires_at < ?', [before])).changes,
  };
}
