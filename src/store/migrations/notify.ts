import { migrationSet, type Migration } from './migration.js';

/** The notify room's tables. Versions from 200, in order (migrationSet). Append new migrations; never edit one that has shipped. */
export const notifyMigrations: Migration[] = migrationSet('notify', 200, {
  // notify_outbox_event is PostgreSQL's alone, as shipped: PostgreSQL does not index a
  // referencing column by itself, and pruning events looks up the outbox rows that refer to
  // them. SQLite databases never had it; giving it to them would take a new migration.
  'events, watches, mutes, outbox, incidents, notices': (d) => `
      CREATE TABLE notify_events (
        id ${d.id},
        dedupe_key TEXT NOT NULL UNIQUE,
        node_id TEXT NOT NULL,
        node_name TEXT,
        event_type TEXT NOT NULL,
        status TEXT,
        event_ts TEXT,
        received_at ${d.bigint} NOT NULL,
        payload TEXT NOT NULL
      );
      CREATE INDEX notify_events_node ON notify_events (node_id, id);

      CREATE TABLE notify_watches (
        id ${d.id},
        platform TEXT NOT NULL,
        channel_id TEXT NOT NULL,
        workspace_id TEXT,
        target TEXT NOT NULL,
        target_name TEXT,
        statuses TEXT,
        created_by TEXT NOT NULL,
        created_at ${d.bigint} NOT NULL,
        paused_at ${d.bigint},
        paused_reason TEXT,
        UNIQUE (platform, channel_id, target)
      );

      CREATE TABLE notify_mutes (
        platform TEXT NOT NULL,
        channel_id TEXT NOT NULL,
        target TEXT NOT NULL,
        until ${d.bigint} NOT NULL,
        muted_by TEXT NOT NULL,
        created_at ${d.bigint} NOT NULL,
        PRIMARY KEY (platform, channel_id, target)
      );

      CREATE TABLE notify_outbox (
        id ${d.id},
        platform TEXT NOT NULL,
        channel_id TEXT NOT NULL,
        thread_id TEXT,
        kind TEXT NOT NULL,
        event_id ${d.bigint} REFERENCES notify_events (id),
        incident_id ${d.bigint},
        message TEXT,
        note TEXT,
        dedupe_key TEXT UNIQUE,
        state TEXT NOT NULL DEFAULT 'pending',
        held_by_mute INTEGER NOT NULL DEFAULT 0,
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_at ${d.bigint} NOT NULL,
        created_at ${d.bigint} NOT NULL,
        sent_at ${d.bigint},
        last_error TEXT
      );
      CREATE INDEX notify_outbox_state ON notify_outbox (state, platform, channel_id, id);
      ${d.engine === 'postgres' ? 'CREATE INDEX notify_outbox_event ON notify_outbox (event_id);' : ''}

      CREATE TABLE notify_incidents (
        id ${d.id},
        platform TEXT NOT NULL,
        channel_id TEXT NOT NULL,
        node_id TEXT NOT NULL,
        node_name TEXT,
        state TEXT NOT NULL DEFAULT 'open',
        last_status TEXT NOT NULL,
        opened_at ${d.bigint} NOT NULL,
        resolved_at ${d.bigint},
        message_id TEXT,
        thread_id TEXT,
        acked_by TEXT,
        acked_at ${d.bigint},
        changes INTEGER NOT NULL DEFAULT 0
      );
      CREATE UNIQUE INDEX notify_incidents_open ON notify_incidents (platform, channel_id, node_id) WHERE state = 'open';

      CREATE TABLE notify_notices (
        id ${d.id},
        platform TEXT NOT NULL,
        channel_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        text TEXT NOT NULL,
        created_at ${d.bigint} NOT NULL
      );
    `,

  // The event's own time (ms), as sent. An event is refused once it is older than the
  // retention, so its key must live until both its arrival and its own time are that old:
  // a key pruned earlier (an event stamped ahead of the clock) would let a replay post twice.
  'keep a dedupe key as long as its event may still be accepted': (d) => `ALTER TABLE notify_events ADD COLUMN event_ms ${d.bigint};`,

  /** Issue 15: what a watch hears, and escalation of unacknowledged incidents to on-call paging. */
  'watch kinds, minimum amount and escalation settings; escalations and their outbox': (d) => `
      ALTER TABLE notify_watches ADD COLUMN kinds TEXT;
      ALTER TABLE notify_watches ADD COLUMN min_amount_msat ${d.bigint};
      ALTER TABLE notify_watches ADD COLUMN escalate_after_min ${d.double};
      ALTER TABLE notify_watches ADD COLUMN pagerduty_key TEXT;

      CREATE TABLE notify_escalations (
        incident_id ${d.bigint} PRIMARY KEY,
        escalated_at ${d.bigint} NOT NULL,
        escalated_to TEXT NOT NULL,
        ack_queued INTEGER NOT NULL DEFAULT 0,
        resolve_queued INTEGER NOT NULL DEFAULT 0
      );

      CREATE TABLE notify_page_outbox (
        id ${d.id},
        incident_id ${d.bigint} NOT NULL,
        action TEXT NOT NULL,
        target TEXT NOT NULL,
        body TEXT NOT NULL,
        state TEXT NOT NULL DEFAULT 'pending',
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_at ${d.bigint} NOT NULL,
        created_at ${d.bigint} NOT NULL,
        sent_at ${d.bigint},
        last_error TEXT
      );
      CREATE INDEX notify_page_outbox_due ON notify_page_outbox (state, next_attempt_at);
    `,

  /** Issue 18: the webhook's 2xx promises only that the event is stored; routing it follows, in the outbox worker. */
  // Set (1) by the webhook path, cleared by the router (notify/route-pending.ts) in the
  // transaction that writes the event's outbox rows; NULL for every other event. The partial
  // index holds only the marked events, so finding them is cheap and the index stays tiny.
  'events stored but not yet routed': (d) => `
      ALTER TABLE notify_events ADD COLUMN route_pending ${d.smallint};
      CREATE INDEX notify_events_route_pending ON notify_events (id) WHERE route_pending IS NOT NULL;
    `,

  /** Issue 28: a watch's own thresholds for the watch kinds (JSON: stuck_after, utxos_below, …); NULL: the account's. */
  'per-watch thresholds': () => `ALTER TABLE notify_watches ADD COLUMN thresholds TEXT;`,

  /** Issue 29: what the webhook's commit writes is the event row alone (store/notify-nodes.ts, store/notify-route-queue.ts). */
  // notify_nodes: one row per node, kept by the router (off the request path) in the transaction
  // that writes the outbox rows: the node's last status event by id (the "previous status" of
  // the next event, stored on its outbox rows as prev_status) and its newest status event by
  // the event's own time (a late delivery is superseded by it). Seeded here from the events
  // stored, pending ones included (the router then reads the status before such an event from
  // the events table, as before). newest_ms is left NULL by the seed: the code parses
  // newest_event_ts then, as it parsed event_ts before (SQL cannot parse every stamp the same way).
  // SQLite (one writer, ids committed in id order: BEGIN IMMEDIATE) routes by a cursor instead
  // of clearing a mark per event: the webhook's events keep route_pending = 1, and those after
  // notify_route_cursor.routed_to are the ones to route. It starts just before the oldest event
  // still marked, so every pending event is routed. PostgreSQL (ids not committed in id order;
  // replicas of the previous version may share the database during an upgrade) keeps the marks
  // and both indexes.
  'per-node status table, previous status on outbox rows; SQLite: a routed-up-to cursor instead of the per-node and pending indexes': (
    d,
  ) => `
      CREATE TABLE notify_nodes (
        node_id TEXT PRIMARY KEY,
        last_id ${d.bigint} NOT NULL,
        last_status TEXT,
        newest_id ${d.bigint},
        newest_status TEXT,
        newest_event_ts TEXT,
        newest_ms ${d.bigint}
      )${d.engine === 'sqlite' ? ' WITHOUT ROWID' : ''};
      INSERT INTO notify_nodes (node_id, last_id, last_status, newest_id, newest_status, newest_event_ts)
        SELECT l.node_id, l.id, l.status, n.id, n.status, n.event_ts
        FROM (SELECT node_id, id, status, ROW_NUMBER() OVER (PARTITION BY node_id ORDER BY id DESC) AS r
                FROM notify_events WHERE status IS NOT NULL) l
        LEFT JOIN (SELECT node_id, id, status, event_ts,
                          ROW_NUMBER() OVER (PARTITION BY node_id
                            ORDER BY CASE WHEN event_ms <= received_at THEN event_ms ELSE received_at END DESC, id DESC) AS r
                     FROM notify_events WHERE status IS NOT NULL AND event_ts IS NOT NULL AND event_ms IS NOT NULL) n
          ON n.node_id = l.node_id AND n.r = 1
        WHERE l.r = 1;
      ALTER TABLE notify_outbox ADD COLUMN prev_status TEXT;
      ${
        d.engine === 'sqlite'
          ? `CREATE TABLE notify_route_cursor (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        routed_to INTEGER NOT NULL
      );
      INSERT INTO notify_route_cursor (id, routed_to) VALUES (1, coalesce(
        (SELECT MIN(id) - 1 FROM notify_events WHERE route_pending IS NOT NULL),
        (SELECT MAX(id) FROM notify_events),
        0));
      DROP INDEX notify_events_node;
      DROP INDEX notify_events_route_pending;`
          : ''
      }
    `,

  /** Issue 29: the outbox worker's pass finds each channel's earliest due row by an index probe (store/notify-outbox.ts, pendingChannels). */
  'pending outbox rows by channel and due time': () =>
    `CREATE INDEX notify_outbox_pending_due ON notify_outbox (platform, channel_id, next_attempt_at) WHERE state = 'pending';`,
});
