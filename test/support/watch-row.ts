import type { WatchRow } from '../../src/store/index.js';

/** A watch to store (NotifyStore.upsertWatch): Slack channel C1 hearing every status of every node, unless `o` says otherwise. */
export function newWatch(
  o: Partial<Omit<WatchRow, 'id' | 'paused_at' | 'paused_reason'>> = {},
): Omit<WatchRow, 'id' | 'paused_at' | 'paused_reason'> {
  return {
    platform: 'slack',
    channel_id: 'C1',
    workspace_id: null,
    target: 'all',
    target_name: null,
    statuses: null,
    kinds: null,
    min_amount_msat: null,
    escalate_after_min: null,
    pagerduty_key: null,
    created_by: 'test',
    created_at: 1,
    ...o,
  };
}
