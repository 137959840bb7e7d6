import { REST } from 'discord.js';

export const DISCORD_DEFAULT_API = 'https://discord.com/api';

/**
 * A REST client for Discord (bot token optional: interaction webhooks need none). By default a
 * rate limit is rejected as a RateLimitError instead of queued, so callers (the outbox) decide
 * when to retry. `rejectOnRateLimit: false` waits it out instead: for the answer to an
 * interaction, which nobody would retry (its token lives 15 minutes).
 */
export function createDiscordRest(opts: {
  token?: string;
  apiUrl?: string;
  retries?: number;
  timeoutMs?: number;
  rejectOnRateLimit?: boolean;
}): REST {
  const reject = opts.rejectOnRateLimit ?? true;
  const rest = new REST({
    api: opts.apiUrl ?? DISCORD_DEFAULT_API,
    rejectOnRateLimit: () => reject,
    retries: opts.retries ?? 0,
    timeout: opts.timeoutMs ?? 10_000,
  });
  if (opts.token) rest.setToken(opts.token);
  return rest;
}
