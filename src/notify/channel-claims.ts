/**
 * Which replica posts a channel's outbox, and when the next post may go. Several replicas on
 * one PostgreSQL database each run an outbox worker; a round in a channel is run only by the
 * replica that holds the channel's lease (`outbox:<platform>:<channel>`, store_leases):
 *
 *   take(…)  before a round: takes the lease (or renews it) for the longest a round may last.
 *            False: another replica is posting there, or posted less than the pacing interval ago.
 *   done(…)  after the round: keeps the lease until the channel may post again (the pacer's next
 *            time), so whichever replica runs the next round, two posts in one channel are never
 *            closer than the interval: pacing holds per channel in total, not per replica.
 *
 * A replica that dies mid-round holds the lease until it runs out (`roundMs`); then another
 * takes the channel and posts what was left, the post that was in flight included (at least
 * once across a crash, as on one replica).
 */
import type { Leases } from '../store/index.js';

export interface ChannelClaims {
  take(platform: string, channelId: string, now: number): Promise<boolean>;
  done(platform: string, channelId: string, nextAt: number, now: number): Promise<void>;
}

export function createChannelClaims(o: { leases: Leases; owner: string; roundMs?: number }): ChannelClaims {
  const roundMs = o.roundMs ?? 60_000;
  const name = (platform: string, channelId: string) => `outbox:${platform}:${channelId}`;
  return {
    take: (platform, channelId, now) => o.leases.claim(name(platform, channelId), o.owner, now + roundMs, now),
    async done(platform, channelId, nextAt, now) {
      await o.leases.claim(name(platform, channelId), o.owner, Math.max(nextAt, now), now);
    },
  };
}
