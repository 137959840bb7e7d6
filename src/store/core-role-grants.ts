/** Role grants made at run time with `access grant` (the core room's table core_role_grants). */
import type { Db } from './database.js';

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
  get(principal: string): RoleGrantRow | undefined;
  put(row: RoleGrantRow): void;
  remove(principal: string): boolean;
  all(): RoleGrantRow[];
}

const COLUMNS = 'principal, role, granted_by AS grantedBy, granted_at AS grantedAt, nodes, channels';

export function createRoleGrantStore(db: Db): RoleGrantStore {
  const getQ = db.prepare(`SELECT ${COLUMNS} FROM core_role_grants WHERE principal = ?`);
  const putQ = db.prepare(
    `INSERT INTO core_role_grants (principal, role, granted_by, granted_at, nodes, channels) VALUES (@principal, @role, @grantedBy, @grantedAt, @nodes, @channels)
     ON CONFLICT (principal) DO UPDATE SET role = excluded.role, granted_by = excluded.granted_by, granted_at = excluded.granted_at,
       nodes = excluded.nodes, channels = excluded.channels`,
  );
  const delQ = db.prepare('DELETE FROM core_role_grants WHERE principal = ?');
  const allQ = db.prepare(`SELECT ${COLUMNS} FROM core_role_grants ORDER BY principal`);
  return {
    get: (principal) => getQ.get(principal) as RoleGrantRow | undefined,
    put: (row) => void putQ.run({ nodes: null, channels: null, ...row }),
    remove: (principal) => delQ.run(principal).changes > 0,
    all: () => allQ.all() as RoleGrantRow[],
  };
}
