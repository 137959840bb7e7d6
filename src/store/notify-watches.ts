import type { AnyDb } from './database.js';
import { ROUTING_GENERATION, type NotifyRoutingIndex } from './notify-routing-index.js';
import type { MuteRow, WatchRow } from './notify-rows.js';
import { whereEquals } from './where-equals.js';

/**
 * Watches and mutes of the notify room. Every write bumps the routing counter in its own
 * transaction (so other connections and replicas notice it) and tells this connection's
 * routing index, which routing reads from memory.
 */
export class NotifyWatches {
  constructor(
    private readonly db: AnyDb,
    private readonly routing: NotifyRoutingIndex,
  ) {}

  /** Runs a write of watches or mutes with the counter's bump, in one transaction; `bump(result)` false: nothing changed. */
  private async write<T>(fn: () => Promise<T>, bump: (result: T) => boolean = () => true): Promise<T> {
    const result = await this.db.tx(async () => {
      const r = await fn();
      if (bump(r)) await this.routing.generations.bump(ROUTING_GENERATION);
      return r;
    });
    if (bump(result)) this.routing.changed();
    return result;
  }

  // ---- watches ----
  async upsertWatch(w: Omit<WatchRow, 'id' | 'paused_at' | 'paused_reason'>): Promise<WatchRow> {
    const row = { ...w, thresholds: w.thresholds ?? null };
    const rows = await this.write(
      async () =>
        (
          await this.db.run(
            `INSERT INTO notify_watches (platform, channel_id, workspace_id, target, target_name, statuses, kinds, min_amount_msat, escalate_after_min, pagerduty_key, thresholds, created_by, created_at)
             VALUES (@platform, @channel_id, @workspace_id, @target, @target_name, @statuses, @kinds, @min_amount_msat, @escalate_after_min, @pagerduty_key, @thresholds, @created_by, @created_at)
             ON CONFLICT (platform, channel_id, target) DO UPDATE SET kinds = excluded.kinds, min_amount_msat = excluded.min_amount_msat, thresholds = excluded.thresholds,
               escalate_after_min = excluded.escalate_after_min, pagerduty_key = excluded.pagerduty_key,
               statuses = excluded.statuses, target_name = excluded.target_name, workspace_id = excluded.workspace_id,
               created_by = excluded.created_by, paused_at = NULL, paused_reason = NULL
             RETURNING *`,
            row,
          )
        ).rows,
    );
    return rows[0] as unknown as WatchRow;
  }

  async deleteWatch(platform: string, channelId: string, target: string): Promise<boolean> {
    return this.write(
      async () =>
        (
          await this.db.run('DELETE FROM notify_watches WHERE platform = ? AND channel_id = ? AND target = ?', [
            platform,
            channelId,
            target,
          ])
        ).changes > 0,
      (gone) => gone,
    );
  }

  async watches(filter: { platform?: string; channelId?: string } = {}): Promise<WatchRow[]> {
    const where = whereEquals([
      ['platform', filter.platform],
      ['channel_id', filter.channelId],
    ]);
    return this.db.all<WatchRow>(`SELECT * FROM notify_watches ${where.sql} ORDER BY id`, where.params);
  }

  /** Active (not paused) watches on this node or on `all`, in id order (from the routing index). */
  async watchesFor(nodeId: string): Promise<readonly WatchRow[]> {
    return (await this.routing.view()).watchesFor(nodeId);
  }

  async pauseWatches(platform: string, channelId: string, at: number, reason: string): Promise<number> {
    return this.write(
      async () =>
        (
          await this.db.run(
            'UPDATE notify_watches SET paused_at = ?, paused_reason = ? WHERE platform = ? AND channel_id = ? AND paused_at IS NULL',
            [at, reason, platform, channelId],
          )
        ).changes,
      (n) => n > 0,
    );
  }

  // ---- mutes ----
  async upsertMute(m: MuteRow): Promise<void> {
    await this.write(async () => {
      await this.db.run(
        `INSERT INTO notify_mutes (platform, channel_id, target, until, muted_by, created_at)
         VALUES (@platform, @channel_id, @target, @until, @muted_by, @created_at)
         ON CONFLICT (platform, channel_id, target) DO UPDATE SET until = excluded.until, muted_by = excluded.muted_by`,
        {
          platform: m.platform,
          channel_id: m.channel_id,
          target: m.target,
          until: m.until,
          muted_by: m.muted_by,
          created_at: m.created_at,
        },
      );
    });
  }

  async deleteMutes(platform: string, channelId: string, target?: string): Promise<number> {
    return this.write(
      async () =>
        target === undefined
          ? (await this.db.run('DELETE FROM notify_mutes WHERE platform = ? AND channel_id = ?', [platform, channelId])).changes
          : (
              await this.db.run('DELETE FROM notify_mutes WHERE platform = ? AND channel_id = ? AND target = ?', [
                platform,
                channelId,
                target,
              ])
            ).changes,
      (n) => n > 0,
    );
  }

  async mutes(platform?: string, channelId?: string): Promise<MuteRow[]> {
    if (platform && channelId)
      return this.db.all<MuteRow>('SELECT * FROM notify_mutes WHERE platform = ? AND channel_id = ?', [platform, channelId]);
    return this.db.all<MuteRow>('SELECT * FROM notify_mutes');
  }

  /** The mute that silences `nodeId` in this channel at `now`, if any (from the routing index). */
  async activeMute(platform: string, channelId: string, nodeId: string, now: number): Promise<MuteRow | undefined> {
    return (await this.routing.view()).activeMute(platform, channelId, nodeId, now);
  }

  async deleteExpiredMutes(now: number): Promise<number> {
    return this.write(
      async () => (await this.db.run('DELETE FROM notify_mutes WHERE until <= ?', [now])).changes,
      (n) => n > 0,
    );
  }
}
