/** Pending confirmations (core_confirmations): stored so a click works once, by its requester, after a restart. */
import type { AnyDb } from './database.js';

export interface ConfirmationRow {
  id: string;
  requesterJson: string;
  /** `platform:userId` of the requester. */
  requesterKey: string;
  placeJson: string;
  path: string;
  argsJson: string;
  createdAt: number;
  expiresAt: number;
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
      await db.run(
        `INSERT INTO core_confirmations (id, requester_json, requester_key, place_json, path, args_json, created_at, expires_at)
         VALUES (@id, @requesterJson, @requesterKey, @placeJson, @path, @argsJson, @createdAt, @expiresAt)`,
        {
          id: row.id,
          requesterJson: row.requesterJson,
          requesterKey: row.requesterKey,
          placeJson: row.placeJson,
          path: row.path,
          argsJson: row.argsJson,
          createdAt: row.createdAt,
          expiresAt: row.expiresAt,
        },
      );
    },
    get: (id) =>
      db.get<ConfirmationRow>(
        `SELECT id, requester_json AS "requesterJson", requester_key AS "requesterKey", place_json AS "placeJson", path, args_json AS "argsJson",
                created_at AS "createdAt", expires_at AS "expiresAt", used_at AS "usedAt", outcome
         FROM core_confirmations WHERE id = ?`,
        [id],
      ),
    claim: async (id, at, outcome) =>
      (await db.run('UPDATE core_confirmations SET used_at = ?, outcome = ? WHERE id = ? AND used_at IS NULL', [at, outcome, id])).changes > 0,
    deleteExpired: async (before) => (await db.run('DELETE FROM core_confirmations WHERE expires_at < ?', [before])).changes,
  };
}
