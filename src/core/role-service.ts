/**
 * Roles: read < operate < admin. From ADMIN_USERS / OPERATOR_USERS and grants stored with
 * `access grant`. A grant takes effect at once. The local shell user is admin.
 */
import type { Db } from '../store/index.js';
import { createRoleGrantStore } from '../store/index.js';
import type { Actor, Role } from './types.js';
import { UserError } from './errors.js';

export const ROLE_RANK: Record<Role, number> = { read: 0, operate: 1, admin: 2 };
export const ROLES: Role[] = ['read', 'operate', 'admin'];
export const PRINCIPAL_RE = /^(slack|discord|slack-group|discord-role|shell):[^\s:]+$/;
export const SHELL_PRINCIPAL = 'shell:local';

export interface RoleEntry {
  principal: string;
  role: Role;
  source: 'ADMIN_USERS' | 'OPERATOR_USERS' | 'grant' | 'built-in';
  grantedBy?: string;
  grantedAt?: string;
}

export interface RoleService {
  /** `slack:U1`, plus `slack-group:S1` / `discord-role:R1` for the actor's groups. */
  principalsOf(actor: Actor): string[];
  /** The highest role any of the actor's principals has. */
  roleOf(actor: Actor): Role;
  has(actor: Actor, role: Role): boolean;
  /** Stores a grant (replacing an earlier one). Throws UserError on a malformed principal. */
  grant(principal: string, role: Role, by: Actor): void;
  /** Removes a stored grant; false when there was none. Roles from the environment stay. */
  revoke(principal: string): boolean;
  /** The role the environment gives a principal, if any. */
  configuredRole(principal: string): Role | undefined;
  list(): RoleEntry[];
}

export function actorKey(actor: Pick<Actor, 'platform' | 'userId'>): string {
  return `${actor.platform}:${actor.userId}`;
}

export function createRoleService(db: Db, opts: { admins?: string[]; operators?: string[] } = {}): RoleService {
  const store = createRoleGrantStore(db);
  const admins = new Set(opts.admins ?? []);
  const operators = new Set(opts.operators ?? []);

  const configuredRole = (p: string): Role | undefined =>
    p === SHELL_PRINCIPAL || admins.has(p) ? 'admin' : operators.has(p) ? 'operate' : undefined;

  const principalsOf = (actor: Actor): string[] => {
    const out = [actorKey(actor)];
    const prefix = actor.platform === 'slack' ? 'slack-group' : actor.platform === 'discord' ? 'discord-role' : undefined;
    if (prefix) for (const g of actor.groups ?? []) out.push(`${prefix}:${g}`);
    return out;
  };

  const roleOf = (actor: Actor): Role => {
    let best: Role = 'read';
    for (const p of principalsOf(actor)) {
      for (const r of [configuredRole(p), store.get(p)?.role]) {
        if (r && ROLE_RANK[r] > ROLE_RANK[best]) best = r;
      }
    }
    return best;
  };

  return {
    principalsOf,
    roleOf,
    has: (actor, role) => ROLE_RANK[roleOf(actor)] >= ROLE_RANK[role],
    grant(principal, role, by) {
      if (!PRINCIPAL_RE.test(principal)) {
        throw new UserError(
          'invalid_arguments',
          'That is not a principal this bot knows.',
          'Use slack:U123, discord:123456, slack-group:S123 or discord-role:123456.',
        );
      }
      if (!ROLES.includes(role)) throw new UserError('invalid_arguments', 'A role is read, operate or admin.');
      store.put({ principal, role, grantedBy: actorKey(by), grantedAt: new Date().toISOString() });
    },
    revoke: (principal) => store.remove(principal),
    configuredRole,
    list() {
      const entries: RoleEntry[] = [];
      for (const p of admins) entries.push({ principal: p, role: 'admin', source: 'ADMIN_USERS' });
      for (const p of operators) if (!admins.has(p)) entries.push({ principal: p, role: 'operate', source: 'OPERATOR_USERS' });
      entries.push({ principal: SHELL_PRINCIPAL, role: 'admin', source: 'built-in' });
      for (const g of store.all()) entries.push({ principal: g.principal, role: g.role, source: 'grant', grantedBy: g.grantedBy, grantedAt: g.grantedAt });
      return entries;
    },
  };
}
