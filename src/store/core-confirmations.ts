/** Pending confirmations (core_confirmations): stored so a click works once, by its requester, after a restart. */
import type { AnyDb } from './database.js';
import { PENDING_COLUMNS, PENDING_SELECT, PENDING_VALUES, pendingParams, type PendingCommandRow } from './core-pending-commands.js';

export interface ConfirmationRow extends PendingCommandRow {
  usedAt: number | null;
  outcome: string | null;
}

export interface ConfirmationStore {
  insert(row: Omit<ConfirmationRow, 'usedAt' | 'outcome'>): Promise<void>;
  get(id: string): Promise<ConfirmationRow | undefined>;
  /**
   * Marks it used; false when it was already used (a second click, a race). One guarded UPDATE:
   * of concurrent claims, on one replica or several sharing a database, exactly one changes the row.
   */
  claim(id: string, at: number, outcome: string): Promise<boolean>;
  deleteExpired(before: number): Promise<number>;
}

export function createConfirmationStore(db: AnyDb): ConfirmationStore {
  return {
    insert: async (row) => {
      await db.run(`INSERT INTO core_confirmations (${PENDING_COLUMNS}) VALUES (${PENDING_VALUES})`, pendingParams(row));
    },
    get: (id) =>
      db.get<ConfirmationRow>(`SELECT ${PENDING_SELECT}, used_at AS "usedAt", outcome FROM core_confirmations WHERE id = ?`, [id]),
    claim: async (id, at, outcome) =>
      (await db.run('UPDATE core_confirmations SET used_at = ?, outcome = ? WHERE id = ? AND used_at IS NULL', [at, outcome, id])).changes >
      0,
    deleteExpired: async (before) => (await db.run('DELETE FROM core_confirmations WHERE expires_at < ?', [before])).changes,
  };
}
