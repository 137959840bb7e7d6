/**
 * Escalation of delivery failures to the admins: when a channel is gone, or a channel's
 * notifications were given up, a notice is stored, logged, and posted to another watched
 * channel (the same platform first) naming the admins (ADMIN_USERS).
 */
import type { Platform } from '../vocabulary/index.js';
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics.js';
import type { NotifyStore, OutboxEventRow } from '../store/index.js';
import { noticeMessage } from './render-notifications.js';

export interface EscalationOptions {
  store: NotifyStore;
  /** The platforms the bot can post to now (a notice goes only to a channel it can reach). */
  canPost: (platform: Platform) => boolean;
  now: () => number;
  log: Logger;
  metrics?: Metrics;
  /** Principals named in the notices (`slack:U…`). */
  admins?: string[];
}

export interface Escalation {
  /**
   * The channel is gone or the bot was removed: its watches are paused, what waited for it is
   * set aside (state `gone`), and the admins are told.
   */
  channelGone(platform: Platform, channelId: string, why: string): Promise<void>;
  /**
   * Notifications of a channel were given up (refused, or failed too many times): the admins are
   * told (a channel's next failure within 10 minutes is only stored and logged). A failed notice
   * does not cause another (no ping-pong between channels).
   */
  deliveryFailed(platform: Platform, channelId: string, rows: OutboxEventRow[], why: string): Promise<void>;
}

/** A channel's delivery failures within this long after a notice are only stored and logged. */
const QUIET_MS = 10 * 60_000;

export function createEscalation(o: EscalationOptions): Escalation {
  const { store } = o;
  const adminsLine = () => (o.admins?.length ? ` Admins: ${o.admins.join(', ')}.` : '');

  /** Stores the notice and, unless `storeOnly`, posts it to another watched channel. */
  async function tellAdmins(
    platform: Platform,
    channelId: string,
    kind: string,
    header: string,
    text: string,
    dedupeKey: string,
    storeOnly = false,
  ): Promise<void> {
    const now = o.now();
    await store.insertNotice({ platform, channel_id: channelId, kind, text, created_at: now });
    if (storeOnly) return;
    const to = (await store.watches())
      .filter((w) => !w.paused_at && !(w.platform === platform && w.channel_id === channelId) && o.canPost(w.platform as Platform))
      .sort((a, b) => Number(b.platform === platform) - Number(a.platform === platform) || a.id - b.id)[0];
    if (!to) return;
    await store.insertOutbox({
      platform: to.platform,
      channel_id: to.channel_id,
      kind: 'notice',
      message: JSON.stringify(noticeMessage(header, text)),
      dedupe_key: dedupeKey,
      next_attempt_at: now,
      created_at: now,
    });
  }

  return {
    async channelGone(platform, channelId, why) {
      const now = o.now();
      const paused = await store.pauseWatches(platform, channelId, now, why);
      const waiting = await store.pendingIdsOfChannel(platform, channelId);
      await store.markState(waiting, 'gone', why);
      o.metrics?.deliveries.inc({ platform, outcome: 'gone' });
      const text =
        `The ${platform} channel ${channelId} no longer exists or the bot was removed from it (${why}). ` +
        `Its ${paused} watch(es) are paused and ${waiting.length} waiting notification(s) were set aside.${adminsLine()} ` +
        'To resume, invite the bot back and run `/rln watch add <node|all>` in that channel.';
      o.log.error({ platform, channel: channelId, paused, setAside: waiting.length }, 'channel gone: watches paused, admins told');
      await tellAdmins(
        platform,
        channelId,
        'channel_gone',
        'A watched channel is unreachable; its watches are paused',
        text,
        `channel_gone:${platform}:${channelId}:${now}`,
      );
    },

    async deliveryFailed(platform, channelId, rows, why) {
      const alerts = rows.filter((r) => r.kind !== 'notice');
      if (!alerts.length) return;
      const now = o.now();
      const last = await store.lastNoticeAt(platform, channelId, 'delivery_failed');
      const quiet = last !== undefined && now - last < QUIET_MS;
      const nodes = [...new Set(alerts.map((r) => r.ev_node_name ?? r.ev_node_id).filter((x): x is string => !!x))];
      const text =
        `${alerts.length} notification(s) for the ${platform} channel ${channelId} could not be delivered and were given up (${why})` +
        `${nodes.length ? `; nodes: ${nodes.slice(0, 20).join(', ')}${nodes.length > 20 ? ', …' : ''}` : ''}.${adminsLine()} ` +
        'Check the bot can post there; `/rln node list` shows the current status of every node.';
      await tellAdmins(
        platform,
        channelId,
        'delivery_failed',
        'Notifications could not be delivered',
        text,
        `delivery_failed:${platform}:${channelId}:${now}`,
        quiet,
      );
    },
  };
}
