import type { Statement } from './statement-cache.js';
import type { OutboxEventRow, OutboxRow, OutboxState } from './notify-rows.js';

/** The notify outbox: rows to post, their state and retries, and pruning what is done. */
export class NotifyOutbox {
  constructor(
    private readonly q: (sql: string) => Statement,
    private readonly tx: <T>(fn: () => T) => T,
  ) {}

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
}
