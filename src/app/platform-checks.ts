/**
 * /healthz's lines for the chat platforms (issue 27, item 4): each connection's state, and the
 * platforms that are down while the bot serves the rest. `connected`, `connecting` (the first
 * attempt), `unreachable` (retrying with back-off), or `standby` (another replica holds Discord's
 * gateway, or there is no connection to hold).
 */
import type { LinkStatus, Platform } from '../vocabulary/index.js';

const WORD: Record<LinkStatus['state'], string> = { up: 'connected', connecting: 'connecting', down: 'unreachable', stopped: 'standby' };

export function platformChecks(links: Partial<Record<Platform, () => LinkStatus | undefined>>): {
  checks: Record<string, string>;
  degraded: string[];
} {
  const checks: Record<string, string> = {};
  const degraded: string[] = [];
  for (const [platform, status] of Object.entries(links)) {
    const s = status?.();
    checks[platform] = s ? WORD[s.state] : 'standby';
    if (s?.state === 'down') degraded.push(platform);
  }
  return { checks, degraded };
}
