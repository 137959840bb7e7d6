/**
 * A user's Slack user groups (S…), for role grants like `slack-group:S123`. One
 * `usergroups.list?include_users=true` call serves every user for `ttlMs` (default 5 min).
 * Without the `usergroups:read` scope the resolver turns itself off after one warning and
 * everyone simply has no groups (grants to single users still apply).
 */
import type { Logger } from '../../log.js';
import { within } from '../../vocabulary/index.js';

interface UserGroupsClient {
  usergroups: { list(args: { include_users: boolean }): Promise<{ usergroups?: Array<{ id?: string; users?: string[] }> }> };
}

export interface GroupResolver {
  groupsOf(userId: string): Promise<string[]>;
}

const DISABLING_ERRORS = new Set(['missing_scope', 'not_allowed_token_type', 'no_permission', 'paid_teams_only', 'feature_not_enabled']);

export function createGroupResolver(opts: {
  client: UserGroupsClient;
  logger: Logger;
  ttlMs?: number;
  waitMs?: number;
  now?: () => number;
}): GroupResolver {
  const ttl = opts.ttlMs ?? 5 * 60_000;
  const now = opts.now ?? Date.now;
  let disabled = false;
  let byUser = new Map<string, string[]>();
  let fetchedAt = -Infinity;
  let inFlight: Promise<void> | undefined;

  const refresh = () =>
    (inFlight ??= opts.client.usergroups
      .list({ include_users: true })
      .then((res) => {
        const next = new Map<string, string[]>();
        for (const g of res.usergroups ?? []) {
          if (!g.id) continue;
          for (const u of g.users ?? []) next.set(u, [...(next.get(u) ?? []), g.id]);
        }
        byUser = next;
        fetchedAt = now();
      })
      .catch((e: unknown) => {
        const code = (e as { data?: { error?: string } }).data?.error;
        if (code && DISABLING_ERRORS.has(code)) {
          disabled = true;
          opts.logger.warn(
            { code },
            'Slack user groups are not readable (add the usergroups:read scope for slack-group: grants); roles apply per user only',
          );
        } else {
          opts.logger.warn({ err: e }, 'could not read Slack user groups; using the last known ones');
          fetchedAt = now() - ttl + 30_000; // try again in 30 s, not on every command
        }
      })
      .finally(() => {
        inFlight = undefined;
      }));

  return {
    async groupsOf(userId) {
      if (disabled) return [];
      if (now() - fetchedAt > ttl) {
        await within(refresh(), opts.waitMs ?? 1_500);
      }
      return byUser.get(userId) ?? [];
    },
  };
}
