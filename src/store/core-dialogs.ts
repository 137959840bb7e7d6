/** Open dialogs (core_dialogs): which command a modal submission belongs to. Never holds the values typed. */
import type { Db } from './database.js';

export interface DialogRow {
  id: string;
  kind: 'secrets' | 'typed-name';
  requesterJson: string;
  requesterKey: string;
  placeJson: string;
  path: string;
  argsJson: string;
  createdAt: number;
  expiresAt: number;
  usedAt: number | null;
}

export interface DialogStore {
  insert(row: Omit<DialogRow, 'usedAt'>): void;
  get(id: string): DialogRow | undefined;
  claim(id: string, at: number): boolean;
  deleteExpired(before: number): number;
}

export function createDialogStore(db: Db): DialogStore {
  const insertQ = db.prepare(
    `INSERT INTO core_dialogs (id, kind, requester_json, requester_key, place_json, path, args_json, created_at, expires_at)
     VALUES (@id, @kind, @requesterJson, @requesterKey, @placeJson, @path, @argsJson, @createdAt, @expiresAt)`,
  );
  const getQ = db.prepare(
    `SELECT id, kind, requester_json AS requesterJson, requester_key AS requesterKey, place_json AS placeJson, path, args_json AS argsJson,
            created_at AS createdAt, expires_at AS expiresAt, used_at AS usedAt
     FROM core_dialogs WHERE id = ?`,
  );
  const claimQ = db.prepare('UPDATE core_dialogs SET used_at = ? WHERE id = ? AND used_at IS NULL');
  const expireQ = db.prepare('DELETE FROM core_dialogs WHERE expires_at < ?');
  return {
    insert: (row) => void insertQ.run(row),
    get: (id) => getQ.get(id) as DialogRow | undefined,
    claim: (id, at) => claimQ.run(at, id).changes > 0,
    deleteExpired: (before) => expireQ.run(before).changes,
  };
}
