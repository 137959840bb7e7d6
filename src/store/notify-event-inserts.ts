/**
 * How events are inserted (NotifyStore.insertEvent, insertEvents, insertEventsNow): the dedupe
 * key as SQLite stores it, behind the event's own time, and a burst's multi-row INSERTs with
 * the answer each statement's RETURNING fills in, the same for the async and the at-once way.
 */
import type { EventRow } from './notify-rows.js';
import { rowChunks } from './row-chunks.js';
import type { RunResult, SyncQueries } from './sql/types.js';

/**
 * The events of a burst to write: the index in `events` of each (`todo`) and the key it is
 * stored under (`keys`). The first of a key wins, by the key as stored; insertEvent of a key
 * behind its time also looks for the key as given (SQLite), so that one counts too.
 */
function toWrite(events: ReadonlyArray<Omit<EventRow, 'id'>>, sqlite: boolean) {
  const todo: number[] = [];
  const keys: string[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < events.length; i++) {
    const bare = events[i].dedupe_key;
    const stored = (sqlite ? storedEventKey(bare, events[i].event_ms) : undefined) ?? bare;
    if (seen.has(stored) || (stored !== bare && seen.has(bare))) continue;
    seen.add(stored);
    todo.push(i);
    keys.push(stored);
  }
  return { todo, keys };
}

/**
 * A burst's statements (see NotifyStore.insertEvents), and its answer: an id per event, or
 * undefined for a duplicate, which each statement's result fills in (`answered`).
 */
export function eventInserts(events: ReadonlyArray<Omit<EventRow, 'id'>>, sqlite: boolean) {
  const ids = new Array<number | undefined>(events.length).fill(undefined);
  const { todo, keys } = toWrite(events, sqlite);
  // The index in `events` of each stored key: the RETURNING rows say whose id they are.
  const index = new Map<string, number>();
  for (let j = 0; j < todo.length; j++) index.set(keys[j], todo[j]);
  const answered = (r: RunResult) => {
    // (PostgreSQL gives BIGINT columns as strings.)
    for (const row of r.rows) ids[index.get(row.dedupe_key as string)!] = Number(row.id);
  };
  const statements = (sqlite ? sqliteEventChunks : postgresEventChunks).runs(todo.length).map(({ values, start, size }) => {
    const params: unknown[] = [];
    for (let j = start; j < start + size; j++) {
      const e = events[todo[j]];
      params.push(...eventValues(keys[j], e));
      if (sqlite) params.push(e.dedupe_key);
    }
    const text = sqlite
      ? `INSERT INTO notify_events (dedupe_key, node_id, node_name, event_type, status, event_ts, received_at, payload, event_ms, route_pending)
           SELECT column1, column2, column3, column4, column5, column6, column7, column8, column9, column10 FROM (VALUES ${values})
           WHERE NOT EXISTS (SELECT 1 FROM notify_events WHERE dedupe_key = column11)
           ON CONFLICT (dedupe_key) DO NOTHING
           RETURNING id, dedupe_key`
      : `INSERT INTO notify_events (dedupe_key, node_id, node_name, event_type, status, event_ts, received_at, payload, event_ms, route_pending)
           VALUES ${values}
           ON CONFLICT (dedupe_key) DO NOTHING
           RETURNING id, dedupe_key`;
    return { text, params, answered };
  });
  return { ids, statements };
}

/**
 * A burst written at once (NotifyStore.insertEventsNow, SQLite), when no key is stored as given
 * (`BARE_KEYS_STORED`): one prepared single-row INSERT per event, with no look for the key as
 * given and no RETURNING. The same answer as eventInserts': a key twice in the burst is refused
 * the second time by the unique index (ON CONFLICT DO NOTHING), as one stored before is, so no
 * set of the burst's keys is built (hashing each ~80-character key cost every event ~2,000
 * instructions; issue 29). Measured alone (9 events a batch, alternating): 19–22 µs per event
 * against 26–34 for the multi-row statements with that look and their RETURNING; 26–32 against
 * 46–57 in batches of 3, a steady rate's (docs/benchmarks.md, 2026-11-28).
 */
export function insertEventsOneByOne(events: ReadonlyArray<Omit<EventRow, 'id'>>, q: SyncQueries): Array<number | undefined> {
  const ids = new Array<number | undefined>(events.length);
  for (let i = 0; i < events.length; i++) {
    const e = events[i];
    ids[i] = q.insert(SQLITE_EVENT_INSERT, eventValues(storedEventKey(e.dedupe_key, e.event_ms) ?? e.dedupe_key, e));
  }
  return ids;
}

/** An event row's values, its key as stored first, in the order of the INSERTs' columns. */
const eventValues = (key: string, e: Omit<EventRow, 'id'>): unknown[] => [
  key,
  e.node_id,
  e.node_name,
  e.event_type,
  e.status,
  e.event_ts,
  e.received_at,
  e.payload,
  e.event_ms ?? null,
  e.route_pending ?? null,
];

const SQLITE_EVENT_INSERT = `INSERT INTO notify_events (dedupe_key, node_id, node_name, event_type, status, event_ts, received_at, payload, event_ms, route_pending)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT (dedupe_key) DO NOTHING`;

/**
 * Rows per INSERT of insertEvents. SQLite's row: the key as stored, the columns, and the key as
 * given (looked for too); PostgreSQL's: the columns.
 */
const EVENT_CHUNKS = [16, 8, 4, 2, 1];
const sqliteEventChunks = rowChunks(EVENT_CHUNKS, '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
const postgresEventChunks = rowChunks(EVENT_CHUNKS, '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');

/** `t` + the event's time in ms as 12 hex digits + `:`: fixed width, so keys sort by time. */
export const STORED_KEY_MARK = 't';
export const STORED_KEY_PREFIX_LENGTH = 14;
const MAX_MS = 16 ** 12;

/**
 * How an event's dedupe key is stored on SQLite: behind the event's own time, when it has one
 * (else undefined: stored as given). Deterministic: a redelivery carries the same time. The
 * dedupe keys of webhooks (webhooks/read-event.ts) hash that time, or the whole body when there
 * is none, so one key never comes with two times.
 */
export function storedEventKey(key: string, eventMs: number | null | undefined): string | undefined {
  if (typeof eventMs !== 'number' || !Number.isSafeInteger(eventMs) || eventMs < 0 || eventMs >= MAX_MS) return undefined;
  return `${STORED_KEY_MARK}${eventMs.toString(16).padStart(12, '0')}:${key}`;
}

/**
 * Whether a SQLite database holds an event key stored as given that an older version stored so
 * and that today would be stored behind its event's time (before d131981, 2026-11-23): a row
 * whose key has no time prefix and whose event had a time. While one may be there, a write
 * looks for each key as given too; once none is, no new one comes (an event with a time is
 * stored behind it), so the look can go. The event's time: `event_ms`, or, in rows from before
 * that column, a time in the body (`eventTimestamp` or `timestamp`, as webhooks/read-event.ts
 * reads it). A key stored bare for another reason (a time out of range, or not a date) at worst
 * keeps the look on: never a duplicate. An event without a time is not counted: its key hashes
 * its body and is stored as given by every version. The unique index gives the keys without the
 * prefix: they sort before `t` or from `u` on (hex keys, and keys such as `activity:…`).
 */
export const BARE_KEYS_STORED = `SELECT 1 FROM notify_events
  WHERE (dedupe_key < '${STORED_KEY_MARK}' OR dedupe_key >= '${String.fromCharCode(STORED_KEY_MARK.charCodeAt(0) + 1)}')
    AND (event_ms IS NOT NULL
      OR CASE WHEN json_valid(payload) THEN coalesce(json_extract(payload, '$.eventTimestamp'), json_extract(payload, '$.timestamp')) END IS NOT NULL)
  LIMIT 1`;
