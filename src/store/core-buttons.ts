/** Button ids (core_buttons): a click carries only the short id; the command and its arguments stay here. */
import type { AnyDb } from './database.js';

export interface ButtonRow {
  id: string;
  command: string;
  argsJson: string;
  createdAt: number;
  expiresAt: number;
}

export interface ButtonStore {
  insert(row: ButtonRow): Promise<void>;
  get(id: string): Promise<ButtonRow | undefined>;
  deleteExpired(before: number): Promise<number>;
}

export function createButtonStore(db: AnyDb): ButtonStore {
  return {
    insert: async (row) => {
      await db.run(
        `INSERT INTO core_buttons (id, command, args_json, created_at, expires_at) VALUES (@id, @command, @argsJson, @createdAt, @expiresAt)
         ON CONFLICT (id) DO UPDATE SET command = excluded.command, args_json = excluded.args_json, created_at = excluded.created_at, expires_at = excluded.expires_at`,
        { id: row.id, command: row.command, argsJson: row.argsJson, createdAt: row.createdAt, expiresAt: row.expiresAt },
      );
    },
    get: (id) =>
      db.get<ButtonRow>(
        'SELECT id, command, args_json AS "argsJson", created_at AS "createdAt", expires_at AS "expiresAt" FROM core_buttons WHERE id = ?',
        [id],
      ),
    deleteExpired: async (before) => (await db.run('DELETE FROM core_buttons WHERE expires_at < ?', [before])).changes,
  };
}
