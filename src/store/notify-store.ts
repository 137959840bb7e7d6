/**
 * SQL of the notify room (tables of migrations/notify.ts): events, watches, mutes,
 * outbox, incidents and notices. Synchronous (better-sqlite3); callers group writes in
 * `store.tx(() => ...)` so an event and its outbox rows commit together.
 */
import type { Db } from './database.js';
import { statementCache, type Statement } from './statement-cache.js';
import { routingIndexOf, type NotifyRoutingIndex } from './notify-routing-index.js';

export interface EventRow {
  id: number;
  dedupe_key: string;
  node_id: string;
  node_name: string | null;
  event_type: string;
  status: string | null;
  event_ts: string | null;
  received_at: number;
  payload: string;
  event_ms?: number | null; // the event's own timestamp (ms) as sent; event_ts may be the effective time
}

export interface WatchRow {
  id: number;
  platform: string;
  channel_id: string;
  workspace_id: string | null;
  /** A node id, or `all`. */
  target: string;
  target_name: string | null;
  /** Comma-separated statuses; null = every status. */
  statuses: string | null;
  created_by: string;
  created_at: number;
  paused_at: number | null;
  paused_reason: string | null;
  /** Issue 15 (migration 201): comma-separated kinds (null = status only), least payment/transfer amount, escalation delay, PagerDuty key. */
  kinds: string | null; min_amount_msat: number | null; escalate_after_min: number | null; pagerduty_key: string | null;
}

export interface MuteRow {
  platform: string;
  channel_id: string;
  target: string;
  until: number;
  muted_by: string;
  created_at: number;
}

export type OutboxState = 'pending' | 'held' | 'sent' | 'failed' | 'gone';

export interface OutboxRow {
  id: number;
  platform: string;
  channel_id: string;
  thread_id: string | null;
  kind: string;
  event_id: number | null;
  incident_id: number | null;
  message: string | null;
  note: string | null;
  dedupe_key: string | null;
  state: OutboxState;
  held_by_mute: number;
  attempts: number;
  next_attempt_at: number;
  created_at: number;
  sent_at: number | null;
  last_error: string | null;
}

/** An outbox row joined with its event (event rows only). */
export interface OutboxEventRow extends OutboxRow {
  ev_node_id: string | null;
  ev_node_name: string | null;
  ev_event_type: string | null;
  ev_status: string | null;
  ev_event_ts: string | null;
  ev_received_at: number | null;
  ev_payload: string | null;
}

export interface IncidentRow {
  id: number;
  platform: string;
  channel_id: string;
  node_id: string;
  node_name: string | null;
  state: 'open' | 'resolved';
  last_status: string;
  opened_at: number;
  resolved_at: number | null;
  message_id: string | null;
  thread_id: string | null;
  acked_by: string | null;
  acked_at: number | null;
  changes: number;
  /** From notify_escalations, when the incident was paged (read by incident()). */
  escalated_at?: number | null; escalated_to?: string | null;
}

export interface NoticeRow {
  id: number;
  platform: string;
  channel_id: string;
  kind: string;
  text: string;
  created_at: number;
}

export class NotifyStore {
  /** Statements prepared once and reused (this store is on the webhook and outbox hot paths). */
  private readonly q: (sql: string) => Statement;
  /** Watches and mutes in memory for routing; every write below to them tells it. */
  private readonly routing: NotifyRoutingIndex;
  /** One transaction function for every tx() (better-sqlite3 builds a new one per db.transaction call). */
  private readonly txn: (fn: () => unknown) => unknown;

  constructor(readonly db: Db) {
    this.q = statementCache(db);
    this.routing = routingIndexOf(db, this.q);
    this.txn = db.transaction((fn: () => unknown) => fn());
  }

  tx<T>(fn: () => T): T {
    return this.txn(fn) as T;
  }

  // ---- events ----
  /** Inserts an event; undefined when its dedupe key is already stored (a redelivery). */
  insertEvent(e: Omit<EventRow, 'id'>): number | undefined {
    const r = this.q(
        `INSERT INTO notify_events (dedupe_key, node_id, node_name, event_type, status, event_ts, received_at, payload, event_ms)
         VALUES (@dedupe_key, @node_id, @node_name, @event_type, @status, @event_ts, @received_at, @payload, @event_ms)
         ON CONFLICT (dedupe_key) DO NOTHING`,
      )
      .run({ event_ms: null, ...e });
    return r.changes ? Number(r.lastInsertRowid) : undefined;
  }

  eventByKey(key: string): EventRow | undefined {
    return this.q('SELECT * FROM notify_events WHERE dedupe_key = ?').get(key) as EventRow | undefined;
  }

  /** The status of the node's last event before `beforeEventId` (for counting changes). */
  previousStatus(nodeId: string, beforeEventId: number): string | undefined {
    return (
      (this.q('SELECT status FROM notify_events WHERE node_id = ? AND id < ? AND status IS NOT NULL ORDER BY id DESC LIMIT 1')
        .pluck()
        .get(nodeId, beforeEventId) as string | undefined) ?? undefined
    );
  }

  /** The node's most recent events that carry a status and a timestamp, newest arrival first. */
  recentStatusEvents(nodeId: string, limit = 50): Array<{ id: number; status: string; event_ts: string }> {
    return this.q(
      'SELECT id, status, event_ts FROM notify_events WHERE node_id = ? AND status IS NOT NULL AND event_ts IS NOT NULL ORDER BY id DESC LIMIT ?',
    ).all(nodeId, limit) as Array<{ id: number; status: string; event_ts: string }>;
  }

  countEvents(): number {
    return this.q('SELECT COUNT(*) FROM notify_events').pluck().get() as number;
  }

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
    const where: string[] = [];
    const params: unknown[] = [];
    if (filter.platform) (where.push('platform = ?'), params.push(filter.platform));
    if (filter.channelId) (where.push('channel_id = ?'), params.push(filter.channelId));
    return this.q(`SELECT * FROM notify_watches ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id`)
      .all(...params) as WatchRow[];
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

  // ---- outbox ----
  insertOutbox(r: {
    platform: string;
    channel_id: string;
    thread_id?: string | null;
    kind: string;
    event_id?: number | null;
    incident_id?: number | null;
    message?: string | null;
    note?: string | null;
    dedupe_key?: string | null;
    state?: OutboxState;
    held_by_mute?: number;
    next_attempt_at: number;
    created_at: number;
  }): number | undefined {
    const res = this.q(
        `INSERT INTO notify_outbox (platform, channel_id, thread_id, kind, event_id, incident_id, message, note, dedupe_key, state, held_by_mute, next_attempt_at, created_at)
         VALUES (@platform, @channel_id, @thread_id, @kind, @event_id, @incident_id, @message, @note, @dedupe_key, @state, @held_by_mute, @next_attempt_at, @created_at)
         ON CONFLICT (dedupe_key) DO NOTHING`,
      )
      .run({
        thread_id: null,
        event_id: null,
        incident_id: null,
        message: null,
        note: null,
        dedupe_key: null,
        state: 'pending',
        held_by_mute: 0,
        ...r,
      });
    return res.changes ? Number(res.lastInsertRowid) : undefined;
  }

  /** Channels that have pending rows, with the earliest due time and the oldest creation time. */
  pendingChannels(): Array<{ platform: string; channel_id: string; due: number; oldest: number }> {
    return this.q(
        `SELECT platform, channel_id, MIN(next_attempt_at) AS due, MIN(created_at) AS oldest
         FROM notify_outbox WHERE state = 'pending' GROUP BY platform, channel_id`,
      )
      .all() as Array<{ platform: string; channel_id: string; due: number; oldest: number }>;
  }

  /** Pending rows of one channel that are due, oldest first, with their event. */
  duePending(platform: string, channelId: string, now: number, limit = 2000): OutboxEventRow[] {
    return this.q(
        `SELECT o.*, e.node_id AS ev_node_id, e.node_name AS ev_node_name, e.event_type AS ev_event_type, e.status AS ev_status,
                e.event_ts AS ev_event_ts, e.received_at AS ev_received_at, e.payload AS ev_payload
         FROM notify_outbox o LEFT JOIN notify_events e ON e.id = o.event_id
         WHERE o.state = 'pending' AND o.platform = ? AND o.channel_id = ? AND o.next_attempt_at <= ?
         ORDER BY o.id LIMIT ?`,
      )
      .all(platform, channelId, now, limit) as OutboxEventRow[];
  }

  /** Held rows no mute covers any more at `now` (ended, removed, or a row with no node). */
  releasableHeldIds(now: number): number[] {
    return this.q(
        `SELECT o.id FROM notify_outbox o LEFT JOIN notify_events e ON e.id = o.event_id
         WHERE o.state = 'held' AND (e.node_id IS NULL OR NOT EXISTS (
           SELECT 1 FROM notify_mutes m
           WHERE m.platform = o.platform AND m.channel_id = o.channel_id AND (m.target = e.node_id OR m.target = 'all') AND m.until > ?))
         ORDER BY o.id`,
      )
      .pluck()
      .all(now) as number[];
  }

  releaseHeld(ids: number[], now: number): void {
    const st = this.q(`UPDATE notify_outbox SET state = 'pending', next_attempt_at = ? WHERE id = ? AND state = 'held'`);
    this.tx(() => {
      for (const id of ids) st.run(now, id);
    });
  }

  markSent(ids: number[], now: number): void {
    const st = this.q(`UPDATE notify_outbox SET state = 'sent', sent_at = ?, last_error = NULL WHERE id = ?`);
    this.tx(() => {
      for (const id of ids) st.run(now, id);
    });
  }

  markState(ids: number[], state: OutboxState, error: string): void {
    const st = this.q(`UPDATE notify_outbox SET state = ?, last_error = ? WHERE id = ?`);
    this.tx(() => {
      for (const id of ids) st.run(state, error, id);
    });
  }

  /** Postpones rows; `countAttempt` adds one to their attempt count. */
  postpone(ids: number[], until: number, error: string, countAttempt: boolean): void {
    const st = this.q(`UPDATE notify_outbox SET next_attempt_at = ?, last_error = ?, attempts = attempts + ? WHERE id = ?`);
    this.tx(() => {
      for (const id of ids) st.run(until, error, countAttempt ? 1 : 0, id);
    });
  }

  /** All pending rows of a channel (due or not), e.g. when it is gone. */
  pendingIdsOfChannel(platform: string, channelId: string): number[] {
    return this.q(`SELECT id FROM notify_outbox WHERE platform = ? AND channel_id = ? AND state IN ('pending', 'held')`)
      .pluck()
      .all(platform, channelId) as number[];
  }

  /** Rows waiting (pending or held). */
  depth(): number {
    return this.q(`SELECT COUNT(*) FROM notify_outbox WHERE state IN ('pending', 'held')`).pluck().get() as number;
  }

  outboxRows(filter: { state?: OutboxState } = {}): OutboxRow[] {
    if (filter.state) return this.q('SELECT * FROM notify_outbox WHERE state = ? ORDER BY id').all(filter.state) as OutboxRow[];
    return this.q('SELECT * FROM notify_outbox ORDER BY id').all() as OutboxRow[];
  }

  /**
   * Forgets what is done and old: outbox rows no longer waiting, created before `before`, and
   * events older than `before` that no row refers to (their dedupe keys go with them).
   */
  prune(before: number): { outbox: number; events: number } {
    return this.tx(() => {
      const outbox = this.q(`DELETE FROM notify_outbox WHERE state IN ('sent', 'failed', 'gone') AND created_at < ?`).run(before).changes;
      const events = this.q('DELETE FROM notify_events WHERE received_at < ? AND coalesce(event_ms, 0) < ? AND id NOT IN (SELECT event_id FROM notify_outbox WHERE event_id IS NOT NULL)').run(before, before).changes;
      return { outbox, events };
    });
  }

  // ---- incidents ----
  openIncident(platform: string, channelId: string, nodeId: string): IncidentRow | undefined {
    return this.q(`SELECT * FROM notify_incidents WHERE platform = ? AND channel_id = ? AND node_id = ? AND state = 'open'`)
      .get(platform, channelId, nodeId) as IncidentRow | undefined;
  }

  incident(id: number): IncidentRow | undefined {
    return this.q('SELECT i.*, e.escalated_at, e.escalated_to FROM notify_incidents i LEFT JOIN notify_escalations e ON e.incident_id = i.id WHERE i.id = ?').get(id) as IncidentRow | undefined;
  }

  incidents(filter: { platform?: string; channelId?: string; state?: 'open' | 'resolved' } = {}): IncidentRow[] {
    const where: string[] = [];
    const params: unknown[] = [];
    if (filter.platform) (where.push('platform = ?'), params.push(filter.platform));
    if (filter.channelId) (where.push('channel_id = ?'), params.push(filter.channelId));
    if (filter.state) (where.push('state = ?'), params.push(filter.state));
    return this.q(`SELECT * FROM notify_incidents ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id`)
      .all(...params) as IncidentRow[];
  }

  insertIncident(i: Omit<IncidentRow, 'id' | 'state' | 'resolved_at' | 'acked_by' | 'acked_at'>): number {
    return Number(
      this.q(
          `INSERT INTO notify_incidents (platform, channel_id, node_id, node_name, last_status, opened_at, message_id, thread_id, changes)
           VALUES (@platform, @channel_id, @node_id, @node_name, @last_status, @opened_at, @message_id, @thread_id, @changes)`,
        )
        .run(i).lastInsertRowid,
    );
  }

  deleteIncident(id: number): void {
    this.q('DELETE FROM notify_incidents WHERE id = ?').run(id);
  }

  /** The incident's message is lost (deleted by someone): the next round posts a fresh one. */
  clearIncidentMessage(id: number): void {
    this.q('UPDATE notify_incidents SET message_id = NULL, thread_id = NULL WHERE id = ?').run(id);
  }

  setIncidentMessage(id: number, messageId: string, threadId: string | null): void {
    this.q('UPDATE notify_incidents SET message_id = ?, thread_id = ? WHERE id = ?').run(messageId, threadId, id);
  }

  updateIncident(id: number, patch: Partial<Pick<IncidentRow, 'state' | 'last_status' | 'resolved_at' | 'acked_by' | 'acked_at' | 'changes'>>): void {
    const keys = Object.keys(patch);
    if (!keys.length) return;
    this.q(`UPDATE notify_incidents SET ${keys.map((k) => `${k} = @${k}`).join(', ')} WHERE id = @id`).run({ ...patch, id });
  }

  // ---- notices ----
  insertNotice(n: Omit<NoticeRow, 'id'>): number {
    return Number(
      this.q('INSERT INTO notify_notices (platform, channel_id, kind, text, created_at) VALUES (@platform, @channel_id, @kind, @text, @created_at)').run(n)
        .lastInsertRowid,
    );
  }

  /** When the channel last had a notice of this kind, if ever. */
  lastNoticeAt(platform: string, channelId: string, kind: string): number | undefined {
    return (
      (this.q('SELECT MAX(created_at) FROM notify_notices WHERE platform = ? AND channel_id = ? AND kind = ?').pluck().get(platform, channelId, kind) as
        | number
        | null) ?? undefined
    );
  }

  notices(): NoticeRow[] {
    return this.q('SELECT * FROM notify_notices ORDER BY id').all() as NoticeRow[];
  }
}
