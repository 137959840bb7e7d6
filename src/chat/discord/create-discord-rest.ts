import { REST } from 'discord.js';

export const DISCORD_DEFAULT_API = 'https://discord.com/api';

/**
 * A REST client for Discord (bot token optional: interaction webhooks need none). A rate limit is
 * rejected as a RateLimitError instead of queued, so callers (the outbox) decide when to retry.
 */
export function createDiscordRest(opts: { token?: string; apiUrl?: string; retries?: number; timeoutMs?: number }): REST {
  const rest = new REST({
    api: opts.apiUrl ?? DISCORD_DEFAULT_API,
    rejectOnRateLimit: () => true,
    retries: opts.retries ?? 0,
    timeout: opts.timeoutMs ?? 10_000,
  });
  if (opts.token) rest.setToken(opts.token);
  return rest;
}
