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
});
