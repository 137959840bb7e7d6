/** Pending confirmations (core_confirmations): stored so a click works once, by its requester, after a restart. */
import type { Db } from './database.js';

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
  insert(row: Omit<ConfirmationRow, 'usedAt' | 'outcome'>): void;
  get(id: string): ConfirmationRow | undefined;
  /** Marks it used; false when it was already used (a second click, a race). */
  claim(id: string, at: number, outcome: string): boolean;
  deleteExpired(before: number): number;
}

export function createConfirmationStore(db: Db): ConfirmationStore {
  const insertQ = db.prepare(
    `INSERT INTO core_confirmations (id, requester_json, requester_key, place_json, path, args_json, created_at, expires_at)
     VALUES (@id, @requesterJson, @requesterKey, @placeJson, @path, @argsJson, @createdAt, @expiresAt)`,
  );
  const getQ = db.prepare(
    `SELECT id, requester_json AS requesterJson, requester_key AS requesterKey, place_json AS placeJson, path, args_json AS argsJson,
            created_at AS createdAt, expires_at AS expiresAt, used_at AS usedAt, outcome
     FROM core_confirmations WHERE id = ?`,
  );
  const claimQ = db.prepare('UPDATE core_confirmations SET used_at = ?, outcome = ? WHERE id = ? AND used_at IS NULL');
  const expireQ = db.prepare('DELETE FROM core_confirmations WHERE expires_at < ?');
  return {
    insert: (row) => void insertQ.run(row),
    get: (id) => getQ.get(id) as ConfirmationRow | undefined,
    claim: (id, at, outcome) => claimQ.run(at, outcome, id).changes > 0,
    deleteExpired: (before) => expireQ.run(before).changes,
  };
}
