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
 *   During a round the lease is renewed every few seconds (a heartbeat) and checked before each
 *   call: a replica that lost it (its database unreachable longer than the lease) stops posting.
 *
 * A replica that dies mid-round holds the lease until it runs out (`roundMs`, 15 s after its
 * last heartbeat); then another takes the channel and posts what was left, the post that was in
 * flight included (at least once across a crash, as on one replica).
 */
import type { Leases } from '../store/index.js';

export interface ChannelClaims {
  /** Takes or renews the channel's lease for `roundMs`. */
  take(platform: string, channelId: string, now: number): Promise<boolean>;
  /** How often a round renews its lease. */
  readonly heartbeatMs: number;
  done(platform: string, channelId: string, nextAt: number, now: number): Promise<void>;
}

/** This replica no longer holds the channel (another one posts it now): the round stops, nothing is recorded as failed. */
export class ChannelLeaseLost extends Error {
  override readonly name = 'ChannelLeaseLost';
}

export function createChannelClaims(o: { leases: Leases; owner: string; roundMs?: number }): ChannelClaims {
  const roundMs = o.roundMs ?? 15_000;
  const name = (platform: string, channelId: string) => `outbox:${platform}:${channelId}`;
  return {
    heartbeatMs: Math.max(50, Math.floor(roundMs / 3)),
    take: (platform, channelId, now) => o.leases.claim(name(platform, channelId), o.owner, now + roundMs, now),
    async done(platform, channelId, nextAt, now) {
      await o.leases.claim(name(platform, channelId), o.owner, Math.max(nextAt, now), now);
    },
  };
}
