/**
 * Roles: read < operate < admin. From ADMIN_USERS / OPERATOR_USERS and grants stored with
 * `access grant`. A grant takes effect at once. The local shell user is admin.
 * A grant may be scoped to some nodes and/or channels: it counts only where its scope covers
 * the node and the channel of the attempt.
 *
 * Reading (docs/configuration.md, READ_USERS): whoever is in READ_USERS, ADMIN_USERS or OPERATOR_USERS,
 * or holds a grant with no scope, reads everywhere. A scoped grant (of any role) lets its holder read
 * within its scope only, whether or not READ_USERS is set: it says where that person acts. Anyone else
 * reads everywhere when READ_USERS is unset, and nowhere when it is set. A read that names no node
 * (help, node list) is not refused by a grant's node scope; its channel scope still applies, and what
 * it lists of the nodes is only those the scope reaches (`readableNodes`).
 */
import type { AnyDb, RoleGrantRow } from '../store/index.js';
import { createIdentityLinkStore, createRoleGrantStore } from '../store/index.js';
import { PRINCIPAL_RE, UserError, type Actor, type Role } from '../vocabulary/index.js';

export const ROLE_RANK: Record<Role, number> = { read: 0, operate: 1, admin: 2 };
export const ROLES: Role[] = ['read', 'operate', 'admin'];
export const SHELL_PRINCIPAL = 'shell:local';

export interface RoleEntry {
  principal: string;
  role: Role;
  source: 'ADMIN_USERS' | 'OPERATOR_USERS' | 'READ_USERS' | 'grant' | 'built-in';
  grantedBy?: string;
  grantedAt?: string;
  scope?: Scope;
}

/** What a scoped grant reaches: node names or ids, channel ids. An absent list reaches everything. */
export interface Scope {
  nodes?: string[];
  channels?: string[];
}

/** Where an attempt acts: its node (when it names one) and its channel. */
export interface Where {
  node?: { name: string; nodeId: string } | string;
  channelId?: string;
}

/** Whether a scope covers this place (no scope covers everything; a node scope needs a node). */
export function scopeCovers(scope: Scope | undefined, where: Where | undefined): boolean {
  if (!scope) return true;
  if (scope.nodes?.length) {
    const n = where?.node;
    if (!n) return false;
    const names = typeof n === 'string' ? [n] : [n.name, n.nodeId];
    if (!scope.nodes.some((s) => names.some((x) => x.toLowerCase() === s.toLowerCase()))) return false;
  }
  if (scope.channels?.length && !(where?.channelId && scope.channels.includes(where.channelId))) return false;
  return true;
}

export function scopeText(scope: Scope | undefined): string {
  if (!scope) return 'everywhere';
  const parts = [
    scope.nodes?.length ? `nodes=${scope.nodes.join(',')}` : '',
    scope.channels?.length ? `channels=${scope.channels.join(',')}` : '',
  ];
  return parts.filter(Boolean).join(' ') || 'everywhere';
}

const splitScope = (v: string | null | undefined) => (v ? v.split(',').filter(Boolean) : undefined);

export interface RoleService {
  /** `slack:U1`, plus `slack-group:S1` / `discord-role:R1` for the actor's groups. */
  principalsOf(actor: Actor): string[];
  /** The highest role any of the actor's principals has here (a scoped grant counts only where it reaches). */
  roleOf(actor: Actor, where?: Where): Promise<Role>;
  /** Whether the actor has `role` here; for `read`, whether they may read here (see the file's comment). */
  has(actor: Actor, role: Role, where?: Where): Promise<boolean>;
  /**
   * The nodes (names or ids, as granted) the actor may read in this channel, for a read that lists
   * the account's nodes; undefined when they may read every node (READ_USERS, OPERATOR_USERS,
   * ADMIN_USERS, a grant with no node scope here, or no grant at all).
   */
  readableNodes(actor: Actor, channelId?: string): Promise<string[] | undefined>;
  /** The actor's grants that are limited to some nodes or channels, for saying why a scope refused. */
  scopesOf(actor: Actor): Promise<Array<{ role: Role; scope: Scope }>>;
  /** Stores a grant (replacing an earlier one). Throws UserError on a malformed principal. */
  grant(principal: string, role: Role, by: Actor, scope?: Scope): Promise<void>;
  /** Removes a stored grant; false when there was none. Roles from the environment stay. */
  revoke(principal: string): Promise<boolean>;
  /** The role the environment gives a principal, if any. */
  configuredRole(principal: string): Role | undefined;
  list(): Promise<RoleEntry[]>;
  /**
   * Whether two principals are one person: the same, or linked with `access link` (a Slack and a
   * Discord account of one person). Neither approves the other's request.
   */
  samePerson(a: string, b: string): Promise<boolean>;
  /** Links chat accounts as one person; returns every account of that person now. */
  link(principals: string[], by: Actor): Promise<string[]>;
  /** Unlinks one account from its person; false when it was not linked. */
  unlink(principal: string): Promise<boolean>;
  /** Every person with linked accounts. */
  links(): Promise<Array<{ person: string; principals: string[] }>>;
}

export function actorKey(actor: Pick<Actor, 'platform' | 'userId'>): string {
  return `${actor.platform}:${actor.userId}`;
}

export function createRoleService(
  db: AnyDb,
  opts: {
    admins?: string[];
    operators?: string[];
    readers?: string[] /** The one clock (ms); default Date.now. */;
    now?: () => number;
  } = {},
): RoleService {
  const now = opts.now ?? Date.now;
  const store = createRoleGrantStore(db);
  const identities = createIdentityLinkStore(db);
  const admins = new Set(opts.admins ?? []);
  const operators = new Set(opts.operators ?? []);
  const readers = new Set(opts.readers ?? []);

  const configuredRole = (p: string): Role | undefined =>
    p === SHELL_PRINCIPAL || admins.has(p) ? 'admin' : operators.has(p) ? 'operate' : undefined;

  const principalsOf = (actor: Actor): string[] => {
    const out = [actorKey(actor)];
    const prefix = actor.platform === 'slack' ? 'slack-group' : actor.platform === 'discord' ? 'discord-role' : undefined;
    if (prefix) for (const g of actor.groups ?? []) out.push(`${prefix}:${g}`);
    return out;
  };

  const scopeOfRow = (g: { nodes?: string | null; channels?: string | null }): Scope | undefined => {
    const nodes = splitScope(g.nodes);
    const channels = splitScope(g.channels);
    return nodes || channels ? { ...(nodes ? { nodes } : {}), ...(channels ? { channels } : {}) } : undefined;
  };

  /** The stored grants of the actor's principals (one query), in the order of principalsOf. */
  const grantsOf = async (principals: string[]): Promise<Map<string, RoleGrantRow>> => {
    const rows = await store.getMany(principals);
    return new Map(rows.map((g) => [g.principal, g]));
  };

  const bestRole = (principals: string[], grants: Map<string, RoleGrantRow>, where?: Where): Role => {
    let best: Role = 'read';
    for (const p of principals) {
      const g = grants.get(p);
      const granted = g && scopeCovers(scopeOfRow(g), where) ? g.role : undefined;
      for (const r of [configuredRole(p), granted]) {
        if (r && ROLE_RANK[r] > ROLE_RANK[best]) best = r;
      }
    }
    return best;
  };

  /** Whether these principals may read here (the file's comment says the rule). */
  const mayRead = (principals: string[], grants: Map<string, RoleGrantRow>, where?: Where): boolean => {
    if (principals.some((p) => readers.has(p) || configuredRole(p) !== undefined)) return true;
    const scopes = [...grants.values()].map(scopeOfRow);
    if (!scopes.length) return readers.size === 0;
    // A read naming no node is account-wide: a node scope does not refuse it.
    const accountWide = where?.node === undefined;
    return scopes.some((scope) => scopeCovers(accountWide && scope ? { channels: scope.channels } : scope, where));
  };

  const roleOf = async (actor: Actor, where?: Where): Promise<Role> => {
    const principals = principalsOf(actor);
    return bestRole(principals, await grantsOf(principals), where);
  };

  return {
    principalsOf,
    roleOf,
    async has(actor, role, where) {
      const principals = principalsOf(actor);
      const grants = await grantsOf(principals);
      return mayRead(principals, grants, where) && ROLE_RANK[bestRole(principals, grants, where)] >= ROLE_RANK[role];
    },
    async readableNodes(actor, channelId) {
      const principals = principalsOf(actor);
      if (principals.some((p) => readers.has(p) || configuredRole(p) !== undefined)) return undefined;
      const scopes = [...(await grantsOf(principals)).values()].map(scopeOfRow);
      const here = scopes.filter((s) => !s?.channels?.length || (channelId !== undefined && s.channels.includes(channelId)));
      if (!scopes.length || here.some((s) => !s?.nodes?.length)) return undefined;
      return [...new Set(here.flatMap((s) => s?.nodes ?? []))];
    },
    async scopesOf(actor) {
      const principals = principalsOf(actor);
      const grants = await grantsOf(principals);
      const out: Array<{ role: Role; scope: Scope }> = [];
      for (const p of principals) {
        const g = grants.get(p);
        const scope = g && scopeOfRow(g);
        if (g && scope) out.push({ role: g.role, scope });
      }
      return out;
    },
    async grant(principal, role, by, scope) {
      if (/^@/.test(principal)) {
        throw new UserError(
          'invalid_arguments',
          `A plain ${principal.slice(0, 40)} cannot be told apart from a display name.`,
          'Mention the person so the chat fills in the id (<@U123>), or type the id form: slack:U123, discord:123456, slack-group:S123 or discord-role:123456.',
        );
      }
      if (!PRINCIPAL_RE.test(principal)) {
        throw new UserError(
          'invalid_arguments',
          'That is not a principal this bot knows.',
          'Use slack:U123, discord:123456, slack-group:S123 or discord-role:123456.',
        );
      }
      if (!ROLES.includes(role)) throw new UserError('invalid_arguments', 'A role is read, operate or admin.');
      const list = (l?: string[]) => (l?.length ? l.join(',') : null);
      await store.put({
        principal,
        role,
        grantedBy: actorKey(by),
        grantedAt: new Date(now()).toISOString(),
        nodes: list(scope?.nodes),
        channels: list(scope?.channels),
      });
    },
    revoke: (principal) => store.remove(principal),
    async samePerson(a, b) {
      if (a === b) return true;
      const [pa, pb] = await Promise.all([identities.personOf(a), identities.personOf(b)]);
      return pa !== undefined && pa === pb;
    },
    async link(principals, by) {
      for (const p of principals) {
        if (!PRINCIPAL_RE.test(p) || /-(group|role):/.test(p)) {
          throw new UserError(
            'invalid_arguments',
            `${p.slice(0, 40)} is not one person's account.`,
            'Link accounts such as slack:U123 and discord:123456 (not groups or roles).',
          );
        }
      }
      const person = await identities.link(principals, principals[0], actorKey(by), new Date(now()).toISOString());
      return identities.principalsOf(person);
    },
    unlink: (principal) => identities.unlink(principal),
    async links() {
      const by = new Map<string, string[]>();
      for (const r of await identities.all()) by.set(r.person, [...(by.get(r.person) ?? []), r.principal]);
      return [...by].map(([person, principals]) => ({ person, principals }));
    },
    configuredRole,
    async list() {
      const entries: RoleEntry[] = [];
      for (const p of admins) entries.push({ principal: p, role: 'admin', source: 'ADMIN_USERS' });
      for (const p of operators) if (!admins.has(p)) entries.push({ principal: p, role: 'operate', source: 'OPERATOR_USERS' });
      for (const p of readers) if (!admins.has(p) && !operators.has(p)) entries.push({ principal: p, role: 'read', source: 'READ_USERS' });
      entries.push({ principal: SHELL_PRINCIPAL, role: 'admin', source: 'built-in' });
      for (const g of await store.all()) {
        const scope = scopeOfRow(g);
        entries.push({
          principal: g.principal,
          role: g.role,
          source: 'grant',
          grantedBy: g.grantedBy,
          grantedAt: g.grantedAt,
          ...(scope ? { scope } : {}),
        });
      }
      return entries;
    },
  };
}
