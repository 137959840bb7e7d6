/** Rows of the notify room's tables (migrations/notify.ts), as the notify repositories read and write them. */
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
  /**
   * 1: stored by the webhook path, routed after the 2xx by the router; NULL for every other
   * event. On PostgreSQL the router clears it; on SQLite it stays, and the router's cursor says
   * how far it routed (notify-route-queue.ts).
   */
  route_pending?: number | null;
}

/** What the router (notify/route-pending.ts) reads of an event it routes. */
export interface EventToRoute {
  id: number;
  node_id: string;
  status: string | null;
  event_ts: string | null;
  received_at: number;
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
  kinds: string | null;
  min_amount_msat: number | null;
  escalate_after_min: number | null;
  pagerduty_key: string | null;
  /** Issue 28 (migration 204): the watch's own thresholds as JSON (`{"utxos_below":5}`); null: the account's. */
  thresholds?: string | null;
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
  /**
   * An event row's node status before its event, as the router saw it (migration 205): '' when
   * the node had none; NULL when not recorded (other rows, activity, rows stored before 205).
   */
  prev_status: string | null;
}

/**
 * A due outbox row as a round reads it (duePending), joined with its event (event rows only):
 * the columns a round uses. Not its channel, state, due time or last error (the round knows
 * them or has no use for them): a row of 24 columns cost twice the time of these 18 to read,
 * at ~1,000 rows a round.
 */
export interface OutboxEventRow
  extends Omit<OutboxRow, 'platform' | 'channel_id' | 'state' | 'next_attempt_at' | 'sent_at' | 'last_error'> {
  ev_node_id: string | null;
  ev_node_name: string | null;
  ev_event_type: string | null;
  ev_status: string | null;
  ev_event_ts: string | null;
  ev_received_at: number | null;
  /** Null for a status event (NODE_STATUS_UPDATED or UNKNOWN with a status): its message is made from the columns above. */
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
  escalated_at?: number | null;
  escalated_to?: string | null;
}

export interface NoticeRow {
  id: number;
  platform: string;
  channel_id: string;
  kind: string;
  text: string;
  created_at: number;
}
