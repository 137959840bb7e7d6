/**
 * One poll's step of the watch kinds (watch-conditions.ts), between the activity diff and the
 * store: what the node's memory becomes (failed polls in a row, peers gone and since when) and
 * which alerts and recoveries to publish. Pure.
 */
import type { ActivityEvent, ActivitySnapshot, LockState, WatchMemory } from './types.js';
import { conditionsOf, diffConditions, emptyMemory, peersGone } from './watch-conditions.js';
import type { WatchProfile } from './watch-thresholds.js';

export function watchStep(
  node: { nodeId: string; name: string },
  before: WatchMemory | undefined,
  snapshot: ActivitySnapshot,
  polled: LockState,
  profile: WatchProfile,
  now: number,
): { events: ActivityEvent[]; memory: WatchMemory } {
  const prev = before ?? emptyMemory();
  const down = polled === 'unreachable';
  const memory: WatchMemory = {
    open: prev.open,
    misses: down ? prev.misses + 1 : 0,
    ...(down ? { missedSince: prev.missedSince ?? now } : {}),
    peerGoneSince: peersGone(snapshot, prev.peerGoneSince, now),
  };
  const conditions = conditionsOf(node, snapshot, memory, profile, snapshot.backup ?? {}, now);
  const { events, open } = diffConditions(prev.open, conditions, profile.kinds);
  return { events, memory: { ...memory, open } };
}
