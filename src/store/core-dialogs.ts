/** Open dialogs (core_dialogs): which command a modal submission belongs to. Never holds the values typed. */
import type { AnyDb } from './database.js';

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
  insert(row: Omit<DialogRow, 'usedAt'>): Promise<void>;
  get(id: string): Promise<DialogRow | undefined>;
  /** One guarded UPDATE: of concurrent submissions, exactly one claims the dialog. */
  claim(id: string, at: number): Promise<boolean>;
  deleteExpired(before: number): Promise<number>;
}

export function createDialogStore(db: AnyDb): DialogStore {
  return {
    insert: async (row) => {
      await db.run(
        `INSERT INTO core_dialogs (id, kind, requester_json, requester_key, place_json, path, args_json, created_at, expires_at)
         VALUES (@id, @kind, @requesterJson, @requesterKey, @placeJson, @path, @argsJson, @createdAt, @expiresAt)`,
        {
          id: row.id,
          kind: row.kind,
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
      db.get<DialogRow>(
        `SELECT id, kind, requester_json AS "requesterJson", requester_key AS "requesterKey", place_json AS "placeJson", path, args_json AS "argsJson",
                created_at AS "createdAt", expires_at AS "expiresAt", used_at AS "usedAt"
         FROM core_dialogs WHERE id = ?`,
        [id],
      ),
    claim: async (id, at) => (await db.run('UPDATE core_dialogs SET used_at = ? WHERE id = ? AND used_at IS NULL', [at, id])).changes > 0,
    deleteExpired: async (before) => (await db.run('DELETE FROM core_dialogs WHERE expires_at < ?', [before])).changes,
  };
}
