import { letThrough } from '../vocabulary/index.js';
import type { AnyDb } from './database.js';
import type { OutboxEventRow, OutboxRow, OutboxState } from './notify-rows.js';
import { rowChunks } from './row-chunks.js';

/** The notify outbox: rows to post, their state and retries, and pruning what is done. */
/** Rows per read of `duePending`: a few milliseconds of SQLite at a time. */
const DUE_CHUNK = 250;

/** duePending's read: its columns in the order dueRow takes them. */
const DUE_SQL = `SELECT o.id, o.kind, o.thread_id, o.event_id, o.incident_id, o.message, o.note, o.dedupe_key, o.held_by_mute, o.attempts, o.created_at, o.prev_status,
                e.node_id, e.node_name, e.event_type, e.status, e.event_ts, e.received_at,
                CASE WHEN e.status IS NOT NULL AND e.status <> '' AND e.event_type IN ('NODE_STATUS_UPDATED', 'UNKNOWN') THEN NULL ELSE e.payload END
         FROM notify_outbox o LEFT JOIN notify_events e ON e.id = o.event_id
         WHERE o.state = 'pending' AND o.platform = ? AND o.channel_id = ? AND o.next_attempt_at <= ? AND o.id > ?
         ORDER BY o.id LIMIT ?`;

/**
 * pendingChannels' read: a loose index scan. The recursive part steps from one channel to the
 * next in the state index (state, platform, channel_id, id): the next channel of the same
 * platform, or else the first of the next platform, each one probe (a row-value comparison
 * `(platform, channel_id) > (?, ?)` is not a range SQLite's planner takes on both columns).
 * Each channel's earliest due time is the first entry of notify_outbox_pending_due, and its
 * oldest row the first of the state index.
 */
const PENDING_CHANNELS_SQL = `WITH RECURSIVE ch (id, platform, channel_id) AS (
    SELECT id, platform, channel_id FROM (
      SELECT s.id, s.platform, s.channel_id FROM notify_outbox s WHERE s.state = 'pending' ORDER BY s.platform, s.channel_id LIMIT 1) AS first_channel
    UNION ALL
    SELECT o.id, o.platform, o.channel_id FROM ch JOIN notify_outbox o ON o.id = COALESCE(
      (SELECT n.id FROM notify_outbox n WHERE n.state = 'pending' AND n.platform = ch.platform AND n.channel_id > ch.channel_id ORDER BY n.channel_id LIMIT 1),
      (SELECT n.id FROM notify_outbox n WHERE n.state = 'pending' AND n.platform > ch.platform ORDER BY n.platform, n.channel_id LIMIT 1)))
  SELECT ch.platform, ch.channel_id,
    (SELECT d.next_attempt_at FROM notify_outbox d WHERE d.state = 'pending' AND d.platform = ch.platform AND d.channel_id = ch.channel_id
      ORDER BY d.next_attempt_at LIMIT 1) AS due,
    (SELECT f.created_at FROM notify_outbox f WHERE f.state = 'pending' AND f.platform = ch.platform AND f.channel_id = ch.channel_id
      ORDER BY f.id LIMIT 1) AS oldest
  FROM ch`;

/** A row of DUE_SQL as an object (one shape for every row). */
const dueRow = (r: unknown[]): OutboxEventRow =>
  ({
    id: r[0],
    kind: r[1],
    thread_id: r[2],
    event_id: r[3],
    incident_id: r[4],
    message: r[5],
    note: r[6],
    dedupe_key: r[7],
    held_by_mute: r[8],
    attempts: r[9],
    created_at: r[10],
    prev_status: r[11],
    ev_node_id: r[12],
    ev_node_name: r[13],
    ev_event_type: r[14],
    ev_status: r[15],
    ev_event_ts: r[16],
    ev_received_at: r[17],
    ev_payload: r[18],
  }) as OutboxEventRow;

/** The sizes of the `id IN (…)` lists of byIds: a list is padded up to the next one (the last is the most per statement). */
const ID_CHUNKS = [1, 8, 64, 500] as const;
const chunkSize = (n: number): number => ID_CHUNKS.find((s) => s >= n) ?? ID_CHUNKS[ID_CHUNKS.length - 1];
const LISTS = new Map<number, string>(ID_CHUNKS.map((n) => [n, Array.from({ length: n }, () => '?').join(', ')]));
const placeholders = (n: number): string => LISTS.get(n)!;

/** Rows per INSERT of insertEventRows: 64, 8 or 1. */
const eventRowChunks = rowChunks([64, 8, 1], "(?, ?, 'event', ?, ?, ?, ?, ?, ?)");

/** An outbox row of a routed event: in `channel_id`, for `event_id`, pending or held by a mute, dated `at`. */
export interface EventOutboxRow {
  platform: string;
  channel_id: string;
  event_id: number;
  state: 'pending' | 'held';
  held_by_mute: 0 | 1;
  at: number;
  /**
   * The status of the event's node before it (its last status event by id), as the router saw
   * it: '' when the node had none; undefined (stored NULL) when not known (activity), and the
   * round reads it from the events table.
   */
  prev_status?: string;
}

export class NotifyOutbox {
  /** `routed`: the SQL condition of an event already routed (notify-route-queue.ts): only those are pruned. */
  constructor(
    private readonly db: AnyDb,
    private readonly routed: string,
  ) {}

  // ---- outbox ----
  /** Queues a row; undefined when a row with its dedupe key is already there. */
  async insertOutbox(r: {
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
  }): Promise<number | undefined> {
    const res = await this.db.run(
      `INSERT INTO notify_outbox (platform, channel_id, thread_id, kind, event_id, incident_id, message, note, dedupe_key, state, held_by_mute, next_attempt_at, created_at)
       VALUES (@platform, @channel_id, @thread_id, @kind, @event_id, @incident_id, @message, @note, @dedupe_key, @state, @held_by_mute, @next_attempt_at, @created_at)
       ON CONFLICT (dedupe_key) DO NOTHING
       RETURNING id`,
      {
        thread_id: null,
        event_id: null,
        incident_id: null,
        message: null,
        note: null,
        dedupe_key: null,
        state: 'pending',
        held_by_mute: 0,
        ...r,
      },
    );
    return res.rows.length ? Number(res.rows[0].id) : undefined;
  }

  /**
   * Queues the rows of routed events (no thread, message or dedupe key), in the order given,
   * several per statement (64, 8 or 1 rows: three statement texts, each prepared once): the
   * router writes a chunk's rows (one or more per event) in a few statements instead of one each.
   */
  async insertEventRows(rows: readonly EventOutboxRow[]): Promise<void> {
    await eventRowChunks(rows.length, async (values, start, n) => {
      const params: unknown[] = [];
      for (let j = start; j < start + n; j++) {
        const r = rows[j];
        params.push(r.platform, r.channel_id, r.event_id, r.state, r.held_by_mute, r.at, r.at, r.prev_status ?? null);
      }
      await this.db.run(
        `INSERT INTO notify_outbox (platform, channel_id, kind, event_id, state, held_by_mute, next_attempt_at, created_at, prev_status) VALUES ${values}`,
        params,
      );
    });
  }

  /**
   * Channels that have pending rows, each with its earliest due time and the creation time of
   * its first row (by id: rows are created in id order, so that is its oldest). Found by
   * skipping through the index from one channel to the next (`PENDING_CHANNELS_SQL`), so a
   * pass costs a few index probes per channel, not a look at every waiting row: the GROUP BY
   * this replaced read each pending row at each pass, 2 ms at 6,000 rows and 47 ms at 100,000
   * (a platform down, or a storm routed faster than its channels may post), and the outbox
   * worker makes a pass after every burst the webhook stores.
   */
  async pendingChannels(): Promise<Array<{ platform: string; channel_id: string; due: number; oldest: number }>> {
    return this.db.all(PENDING_CHANNELS_SQL);
  }

  /**
   * Pending rows of one channel that are due, oldest first, with their event. Read in chunks of
   * `DUE_CHUNK` rows, with the event loop let through between them: at 1,000 events/s a round
   * reads ~1,000 rows with their payloads, and in one synchronous SQLite read (~10–20 ms) the
   * webhook requests that came meanwhile waited for it (the p99 of routed intake). Outside a
   * transaction, each chunk starts after the last id read, so the rows are those one read
   * would give, plus any that became due between chunks (newer ids).
   *
   * `ev_payload` is read only where a message is made from it: a status event's message is made
   * from its columns (node, status, time), so its payload is not read (null). At 1,000 events/s
   * the payloads were half of the round's read and most of its garbage. The rows come as arrays
   * and are made into objects here (`dueRow`): a whole read of 2,000 due rows took 7.7–8.2 µs a
   * row against 12.7–13.3 with better-sqlite3's objects (measured alone, alternating), and a
   * chunk's read is the longest piece of a round at a steady rate.
   */
  async duePending(platform: string, channelId: string, now: number, limit = 2000): Promise<OutboxEventRow[]> {
    const out: OutboxEventRow[] = [];
    let after = 0;
    while (out.length < limit) {
      const take = Math.min(DUE_CHUNK, limit - out.length);
      const rows = (await this.db.arrays(DUE_SQL, [platform, channelId, now, after, take])).map(dueRow);
      out.push(...rows);
      if (rows.length < take) break;
      after = rows[rows.length - 1].id;
      // Inside a caller's transaction the connection is held anyway: no point in yielding.
      if (!this.db.inTransaction) await letThrough();
    }
    return out;
  }

  /** Held rows no mute covers any more at `now` (ended, removed, or a row with no node). */
  async releasableHeldIds(now: number): Promise<number[]> {
    return this.db.column<number>(
      `SELECT o.id FROM notify_outbox o LEFT JOIN notify_events e ON e.id = o.event_id
       WHERE o.state = 'held' AND (e.node_id IS NULL OR NOT EXISTS (
         SELECT 1 FROM notify_mutes m
         WHERE m.platform = o.platform AND m.channel_id = o.channel_id AND (m.target = e.node_id OR m.target = 'all') AND m.until > ?))
       ORDER BY o.id`,
      [now],
    );
  }

  /**
   * Runs `sql(list)` over `ids` in chunks, `list` the placeholders of an `IN (…)` list: one
   * statement per chunk instead of one per id (a round marks ~1,000 rows sent). A chunk is padded
   * with its first id to one of ID_CHUNKS' sizes, so each statement has a few texts, each
   * prepared once. Outside a caller's transaction each chunk commits by itself and the event
   * loop is let through between chunks: a round's ids never hold the connection (webhook
   * commits wait for it) nor the event loop for long.
   */
  private async byIds(ids: readonly number[], sql: (list: string) => string, params: readonly unknown[]): Promise<void> {
    for (let i = 0; i < ids.length; ) {
      const size = chunkSize(ids.length - i);
      const chunk = ids.slice(i, i + size);
      while (chunk.length < size) chunk.push(chunk[0]);
      await this.db.run(sql(placeholders(size)), [...params, ...chunk]);
      i += size;
      if (i < ids.length && !this.db.inTransaction) await letThrough();
    }
  }

  async releaseHeld(ids: number[], now: number): Promise<void> {
    await this.byIds(
      ids,
      (list) => `UPDATE notify_outbox SET state = 'pending', next_attempt_at = ? WHERE state = 'held' AND id IN (${list})`,
      [now],
    );
  }

  async markSent(ids: number[], now: number): Promise<void> {
    await this.byIds(ids, (list) => `UPDATE notify_outbox SET state = 'sent', sent_at = ?, last_error = NULL WHERE id IN (${list})`, [now]);
  }

  async markState(ids: number[], state: OutboxState, error: string): Promise<void> {
    await this.byIds(ids, (list) => `UPDATE notify_outbox SET state = ?, last_error = ? WHERE id IN (${list})`, [state, error]);
  }

  /** Postpones rows; `countAttempt` adds one to their attempt count. */
  async postpone(ids: number[], until: number, error: string, countAttempt: boolean): Promise<void> {
    await this.byIds(
      ids,
      (list) => `UPDATE notify_outbox SET next_attempt_at = ?, last_error = ?, attempts = attempts + ? WHERE id IN (${list})`,
      [until, error, countAttempt ? 1 : 0],
    );
  }

  /**
   * Stored messages (reports, notices: no event, no incident) of a channel queued after row
   * `afterId` wait until `until` too: a channel's stored messages go in the order they were
   * queued, so a message's files (the row after it) never go before it.
   */
  async postponeLaterStored(platform: string, channelId: string, afterId: number, until: number): Promise<void> {
    await this.db.run(
      `UPDATE notify_outbox SET next_attempt_at = ?
       WHERE platform = ? AND channel_id = ? AND state = 'pending' AND event_id IS NULL AND incident_id IS NULL AND id > ? AND next_attempt_at < ?`,
      [until, platform, channelId, afterId, until],
    );
  }

  /** Fails the pending rows with these dedupe keys (the files of a message that failed). */
  async failByDedupeKeys(keys: readonly string[], error: string): Promise<void> {
    if (!keys.length) return;
    await this.db.tx(async () => {
      for (const k of keys)
        await this.db.run(`UPDATE notify_outbox SET state = 'failed', last_error = ? WHERE dedupe_key = ? AND state = 'pending'`, [
          error,
          k,
        ]);
    });
  }

  /** All pending rows of a channel (due or not), e.g. when it is gone. */
  async pendingIdsOfChannel(platform: string, channelId: string): Promise<number[]> {
    return this.db.column<number>(`SELECT id FROM notify_outbox WHERE platform = ? AND channel_id = ? AND state IN ('pending', 'held')`, [
      platform,
      channelId,
    ]);
  }

  /** Rows waiting (pending or held). */
  async depth(): Promise<number> {
    return (await this.db.value<number>(`SELECT COUNT(*) FROM notify_outbox WHERE state IN ('pending', 'held')`)) ?? 0;
  }

  async outboxRows(filter: { state?: OutboxState } = {}): Promise<OutboxRow[]> {
    if (filter.state) return this.db.all<OutboxRow>('SELECT * FROM notify_outbox WHERE state = ? ORDER BY id', [filter.state]);
    return this.db.all<OutboxRow>('SELECT * FROM notify_outbox ORDER BY id');
  }

  /**
   * Forgets what is done and old: outbox rows no longer waiting, created before `before`, and
   * events older than `before` that no row refers to (their dedupe keys go with them). An event
   * not yet routed stays, however old (it is routed at the worker's next pass).
   */
  async prune(before: number): Promise<{ outbox: number; events: number }> {
    return this.db.tx(async () => {
      const outbox = (await this.db.run(`DELETE FROM notify_outbox WHERE state IN ('sent', 'failed', 'gone') AND created_at < ?`, [before]))
        .changes;
      const events = (
        await this.db.run(
          `DELETE FROM notify_events WHERE received_at < ? AND coalesce(event_ms, 0) < ? AND ${this.routed} AND id NOT IN (SELECT event_id FROM notify_outbox WHERE event_id IS NOT NULL)`,
          [before, before],
        )
      ).changes;
      return { outbox, events };
    });
  }
}
