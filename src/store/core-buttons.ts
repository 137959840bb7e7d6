/** Button ids (core_buttons): a click carries only the short id; the command and its arguments stay here. */
import type { Db } from './database.js';

export interface ButtonRow {
  id: string;
  command: string;
  argsJson: string;
  createdAt: number;
  expiresAt: number;
}

export interface ButtonStore {
  insert(row: ButtonRow): void;
  get(id: string): ButtonRow | undefined;
  deleteExpired(before: number): number;
}

export function createButtonStore(db: Db): ButtonStore {
  const insertQ = db.prepare(
    'INSERT OR REPLACE INTO core_buttons (id, command, args_json, created_at, expires_at) VALUES (@id, @command, @argsJson, @createdAt, @expiresAt)',
  );
  const getQ = db.prepare('SELECT id, command, args_json AS argsJson, created_at AS createdAt, expires_at AS expiresAt FROM core_buttons WHERE id = ?');
  const expireQ = db.prepare('DELETE FROM core_buttons WHERE expires_at < ?');
  return {
    insert: (row) => void insertQ.run(row),
    get: (id) => getQ.get(id) as ButtonRow | undefined,
    deleteExpired: (before) => expireQ.run(before).changes,
  };
}
