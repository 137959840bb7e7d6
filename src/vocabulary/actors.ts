/**
 * Who acts, where, and with which role: the words every layer shares. Nothing here knows a
 * platform's API; the adapters (src/chat) translate their users and channels into these.
 */

export type Platform = 'slack' | 'discord' | 'shell';

/** read < operate < admin. Everyone may read. */
export type Role = 'read' | 'operate' | 'admin';

/**
 * How a principal is written in ADMIN_USERS, OPERATOR_USERS and READ_USERS (and typed in
 * `access grant`): `slack:U123`, `discord:123456`, `slack-group:S123`, `discord-role:123456`,
 * or `shell:<name>` for the terminal.
 */
export const PRINCIPAL_RE = /^(slack|discord|slack-group|discord-role|shell):[^\s:]+$/;

/** Words people type for a role; `reader` and `operator` are the documented aliases. */
export const ROLE_WORDS: Readonly<Record<string, Role>> = {
  read: 'read',
  reader: 'read',
  readers: 'read',
  readonly: 'read',
  'read-only': 'read',
  viewer: 'read',
  operate: 'operate',
  operator: 'operate',
  operators: 'operate',
  op: 'operate',
  ops: 'operate',
  admin: 'admin',
  admins: 'admin',
  administrator: 'admin',
};

/** A typed role (or one of its aliases); undefined when it names none. */
export function roleNamed(text: string): Role | undefined {
  return Object.hasOwn(ROLE_WORDS, text.trim().toLowerCase()) ? ROLE_WORDS[text.trim().toLowerCase()] : undefined;
}

export interface Actor {
  platform: Platform;
  /** Slack user id (U…), Discord user id (snowflake), or `local` for the shell. */
  userId: string;
  displayName?: string;
  /** Slack user-group ids (S…) or Discord role ids the user has, for role grants by group. */
  groups?: string[];
}

export interface Place {
  platform: Platform;
  channelId: string;
  /** Slack team id / Discord guild id. */
  workspaceId?: string;
  threadId?: string;
}

/**
 * What a command moves, for the approval policy and the spend limits: bitcoin in msat (exactly:
 * a 999 msat keysend counts), and an asset in its display units (precision applied). `counts`:
 * counted against daily limits (every send, on Lightning or on-chain, and a channel open).
 */
export interface Spend {
  msat: number;
  asset?: { ticker: string; amount: number };
  /** To whom, as the request shows it (a payee pubkey, a recipient id). */
  to?: string;
  counts: boolean;
}
