import type { Statement } from './statement-cache.js';
import type { NotifyRoutingIndex } from './notify-routing-index.js';
import type { MuteRow, WatchRow } from './notify-rows.js';
import { whereEquals } from './where-equals.js';

/** Watches and mutes of the notify room; every write tells the routing index, which routing reads from memory. */
export class NotifyWatches {
  constructor(
    private readonly q: (sql: string) => Statement,
    private readonly routing: NotifyRoutingIndex,
  ) {}

  // ---- watches ----
  upsertWatch(w: Omit<WatchRow, 'id' | 'paused_at' | 'paused_reason'>): WatchRow {
    this.q(
        `INSERT INTO notify_watches (platform, channel_id, workspace_id, target, target_name, statuses, kinds, min_amount_msat, escalate_after_min, pagerduty_key, created_by, created_at)
         VALUES (@platform, @channel_id, @workspace_id, @target, @target_name, @statuses, @kinds, @min_amount_msat, @escalate_after_min, @pagerduty_key, @created_by, @created_at)
         ON CONFLICT (platform, channel_id, target) DO UPDATE SET kinds = excluded.kinds, min_amount_msat = excluded.min_amount_msat,
           escalate_after_min = excluded.escalate_after_min, pagerduty_key = excluded.pagerduty_key,
           statuses = excluded.statuses, target_name = excluded.target_name, workspace_id = excluded.workspace_id,
           created_by = excluded.created_by, paused_at = NULL, paused_reason = NULL`,
      )
      .run(w);
    this.routing.changed();
    return this.q('SELECT * FROM notify_watches WHERE platform = ? AND channel_id = ? AND target = ?')
      .get(w.platform, w.channel_id, w.target) as WatchRow;
  }

  deleteWatch(platform: string, channelId: string, target: string): boolean {
    const gone = this.q('DELETE FROM notify_watches WHERE platform = ? AND channel_id = ? AND target = ?').run(platform, channelId, target).changes > 0;
    this.routing.changed();
    return gone;
  }

  watches(filter: { platform?: string; channelId?: string } = {}): WatchRow[] {
    const where = whereEquals([['platform', filter.platform], ['channel_id', filter.channelId]]);
    return this.q(`SELECT * FROM notify_watches ${where.sql} ORDER BY id`).all(...where.params) as WatchRow[];
  }

  /** Active (not paused) watches on this node or on `all`, in id order (from the routing index). */
  watchesFor(nodeId: string): readonly WatchRow[] {
    return this.routing.watchesFor(nodeId) ?? this.q(`SELECT * FROM notify_watches WHERE paused_at IS NULL AND (target = ? OR target = 'all') ORDER BY id`)
      .all(nodeId) as WatchRow[];
  }

  pauseWatches(platform: string, channelId: string, at: number, reason: string): number {
    const n = this.q('UPDATE notify_watches SET paused_at = ?, paused_reason = ? WHERE platform = ? AND channel_id = ? AND paused_at IS NULL')
      .run(at, reason, platform, channelId).changes;
    this.routing.changed();
    return n;
  }

  // ---- mutes ----
  upsertMute(m: MuteRow): void {
    this.q(
        `INSERT INTO notify_mutes (platform, channel_id, target, until, muted_by, created_at)
         VALUES (@platform, @channel_id, @target, @until, @muted_by, @created_at)
         ON CONFLICT (platform, channel_id, target) DO UPDATE SET until = excluded.until, muted_by = excluded.muted_by`,
      )
      .run(m);
    this.routing.changed();
  }

  deleteMutes(platform: string, channelId: string, target?: string): number {
    const n =
      target === undefined
        ? this.q('DELETE FROM notify_mutes WHERE platform = ? AND channel_id = ?').run(platform, channelId).changes
        : this.q('DELETE FROM notify_mutes WHERE platform = ? AND channel_id = ? AND target = ?').run(platform, channelId, target).changes;
    this.routing.changed();
    return n;
  }

  mutes(platform?: string, channelId?: string): MuteRow[] {
    if (platform && channelId) return this.q('SELECT * FROM notify_mutes WHERE platform = ? AND channel_id = ?').all(platform, channelId) as MuteRow[];
    return this.q('SELECT * FROM notify_mutes').all() as MuteRow[];
  }

  /** The mute that silences `nodeId` in this channel at `now`, if any. */
  activeMute(platform: string, channelId: string, nodeId: string, now: number): MuteRow | undefined {
    const cached = this.routing.activeMute(platform, channelId, nodeId, now);
    if (cached !== undefined) return cached ?? undefined;
    return this.q(`SELECT * FROM notify_mutes WHERE platform = ? AND channel_id = ? AND (target = ? OR target = 'all') AND until > ? ORDER BY until DESC LIMIT 1`)
      .get(platform, channelId, nodeId, now) as MuteRow | undefined;
  }

  deleteExpiredMutes(now: number): number {
    const n = this.q('DELETE FROM notify_mutes WHERE until <= ?').run(now).changes;
    if (n) this.routing.changed();
    return n;
  }
}
