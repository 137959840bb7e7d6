/** Role grants made at run time with `access grant` (the core room's table core_role_grants). */
import type { AnyDb } from './database.js';

export interface RoleGrantRow {
  principal: string;
  role: 'read' | 'operate' | 'admin';
  grantedBy: string;
  grantedAt: string;
  /** Comma-separated node names or ids the grant is limited to; null: every node. */
  nodes?: string | null;
  /** Comma-separated channel ids the grant is limited to; null: every channel. */
  channels?: string | null;
}

export interface RoleGrantStore {
  get(principal: string): Promise<RoleGrantRow | undefined>;
  /** The grants of several principals at once (one query), in no particular order. */
  getMany(principals: readonly string[]): Promise<RoleGrantRow[]>;
  put(row: RoleGrantRow): Promise<void>;
  remove(principal: string): Promise<boolean>;
  all(): Promise<RoleGrantRow[]>;
}

const COLUMNS = 'principal, role, granted_by AS "grantedBy", granted_at AS "grantedAt", nodes, channels';

export function createRoleGrantStore(db: AnyDb): RoleGrantStore {
  return {
    get: (principal) => db.get<RoleGrantRow>(`SELECT ${COLUMNS} FROM core_role_grants WHERE principal = ?`, [principal]),
    getMany: async (principals) => {
      if (principals.length === 0) return [];
      if (principals.length === 1) {
        const row = await db.get<RoleGrantRow>(`SELECT ${COLUMNS} FROM core_role_grants WHERE principal = ?`, [principals[0]]);
        return row ? [row] : [];
      }
      return db.all<RoleGrantRow>(`SELECT ${COLUMNS} FROM core_role_grants WHERE principal IN (${principals.map(() => '?').join(', ')})`, principals);
    },
    put: async (row) => {
      await db.run(
        `INSERT INTO core_role_grants (principal, role, granted_by, granted_at, nodes, channels) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (principal) DO UPDATE SET role = excluded.role, granted_by = excluded.granted_by, granted_at = excluded.granted_at,
           nodes = excluded.nodes, channels = excluded.channels`,
        [row.principal, row.role, row.grantedBy, row.grantedAt, row.nodes ?? null, row.channels ?? null],
      );
    },
    remove: async (principal) => (await db.run('DELETE FROM core_role_grants WHERE principal = ?', [principal])).changes > 0,
    all: () => db.all<RoleGrantRow>(`SELECT ${COLUMNS} FROM core_role_grants ORDER BY principal`),
  };
}
