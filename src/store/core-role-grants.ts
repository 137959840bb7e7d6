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
      return db.all<RoleGrantRow>(
        `SELECT ${COLUMNS} FROM core_role_grants WHERE principal IN (${principals.map(() => '?').join(', ')})`,
        principals,
      );
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

/**
 * Identity links (`access link`): chat accounts of one person (core_identity_links). Each
 * principal belongs to at most one person; `person` is the key the linked accounts share.
 */
export interface IdentityLinkStore {
  /** The person key of a principal, when it is linked. */
  personOf(principal: string): Promise<string | undefined>;
  /** Every principal linked to this person. */
  principalsOf(person: string): Promise<string[]>;
  /** Links the principals as one person (the key of the first one already linked, else `person`). */
  link(principals: string[], person: string, by: string, at: string): Promise<string>;
  unlink(principal: string): Promise<boolean>;
  all(): Promise<Array<{ principal: string; person: string; linkedBy: string; linkedAt: string }>>;
}

export function createIdentityLinkStore(db: AnyDb): IdentityLinkStore {
  return {
    personOf: async (principal) =>
      (await db.get<{ person: string }>('SELECT person FROM core_identity_links WHERE principal = ?', [principal]))?.person,
    principalsOf: (person) => db.column<string>('SELECT principal FROM core_identity_links WHERE person = ? ORDER BY principal', [person]),
    link: (principals, person, by, at) =>
      db.tx(async () => {
        // Two people already linked on each side become one: every row of the other key moves.
        const keys: string[] = [];
        for (const p of principals) {
          const k = (await db.get<{ person: string }>('SELECT person FROM core_identity_links WHERE principal = ?', [p]))?.person;
          if (k && !keys.includes(k)) keys.push(k);
        }
        const key = keys[0] ?? person;
        for (const k of keys.slice(1)) await db.run('UPDATE core_identity_links SET person = ? WHERE person = ?', [key, k]);
        for (const p of principals) {
          await db.run(
            `INSERT INTO core_identity_links (principal, person, linked_by, linked_at) VALUES (?, ?, ?, ?)
             ON CONFLICT (principal) DO UPDATE SET person = excluded.person, linked_by = excluded.linked_by, linked_at = excluded.linked_at`,
            [p, key, by, at],
          );
        }
        return key;
      }),
    unlink: async (principal) => (await db.run('DELETE FROM core_identity_links WHERE principal = ?', [principal])).changes > 0,
    all: () =>
      db.all(
        'SELECT principal, person, linked_by AS "linkedBy", linked_at AS "linkedAt" FROM core_identity_links ORDER BY person, principal',
      ),
  };
}
