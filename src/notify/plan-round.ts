/**
 * What one outbox round posts in one channel, decided without I/O: `planRound(due, state)`
 * returns the actions, in order, that the executor (execute-round.ts) posts through the
 * channel's pacer. Everything it needs from the store is read beforehand (readRoundState).
 *
 *   - a report/notice row is a round of its own, posted as it is;
 *   - otherwise the round is the acknowledgements and the events waiting for the channel
 *     (a report waiting behind them gets its own round next);
 *   - an acknowledgement refreshes its incident's message and says so in the thread;
 *   - the events of a node with an open incident update the incident in place and add one
 *     line to its thread (a repeat failure of an unacknowledged incident is named in the digest);
 *   - a node whose latest status is FAILED opens an incident (at most maxIncidentsPerRound);
 *   - events older than an event already known for the node are superseded: they neither
 *     open nor update an incident, and the digest shows the node's latest status;
 *   - the other events become one message, or a digest (split every digestMaxNodes nodes)
 *     naming every node, its latest status and its flaps.
 */
import { formatDuration, statusBadge } from '../vocabulary/index.js';
import type { Message, Tone } from '../vocabulary/index.js';
import type { IncidentRow, OutboxEventRow } from '../store/index.js';
import { eventTime, lastChangeTo, safeJson, sortByEventTime } from './event-time.js';
import {
  ACTIVITY_EVENT_PREFIX,
  activityMessage,
  activityParts,
  digestMessage,
  eventMessage,
  type DigestEntry,
} from './render-notifications.js';

/** The events of one node in the round, in event-time order. */
export interface NodeGroup {
  nodeId: string;
  nodeName: string | null;
  rows: OutboxEventRow[];
}

export interface StatusEvent {
  id: number;
  status: string;
  event_ts: string;
}

/** What the plan needs to know besides the rows: read from the store just before planning. */
export interface RoundState {
  now: number;
  /** Per node of the round: its last status before the group's first (status) event. */
  previousStatus: ReadonlyMap<string, string | undefined>;
  /** Per node of the round: the channel's open incident for it. */
  openIncidents: ReadonlyMap<string, IncidentRow>;
  /**
   * Per node of the round: its stored status events that may supersede the group's (the one
   * with the latest event time, from the store's per-node row; newest arrival first).
   */
  recentStatusEvents: ReadonlyMap<string, readonly StatusEvent[]>;
  /** The incidents named by acknowledgement rows, by id. */
  incidents: ReadonlyMap<number, IncidentRow>;
  /** At most this many incidents are opened in one round; the rest go into the digest. */
  maxIncidentsPerRound: number;
  /** Nodes per digest message. */
  digestMaxNodes: number;
}

export type IncidentPatch = Partial<Pick<IncidentRow, 'state' | 'last_status' | 'resolved_at' | 'changes'>>;
export type NewIncident = Pick<IncidentRow, 'node_id' | 'node_name' | 'last_status' | 'opened_at' | 'changes'>;

export type RoundAction =
  /** A report or notice row: its stored message, posted as it is. */
  | { kind: 'post-stored'; rows: OutboxEventRow[]; json: string | null; threadId: string | null }
  /** One event on its own, or one part of a digest. */
  | { kind: 'post'; rows: OutboxEventRow[]; message: Message }
  /** An acknowledgement: refresh the incident message (null: none was posted) and add the note to its thread. */
  | { kind: 'ack'; rows: OutboxEventRow[]; incident: IncidentRow | null; note: string | null }
  /** Post an incident message: a new incident, or one whose message was never posted or is gone. */
  | {
      kind: 'open-incident';
      rows: OutboxEventRow[];
      nodeId: string;
      incident: { create: NewIncident } | { id: number; patch: IncidentPatch };
    }
  /**
   * Edit the incident message in place (`edit`: the events carried a status) and add `line` to
   * its thread; the incident is patched in the store once both went through.
   */
  | {
      kind: 'update-incident';
      rows: OutboxEventRow[];
      incident: IncidentRow;
      patch: IncidentPatch;
      edit: boolean;
      line: string;
      tone: Tone;
    };

/** A row that is posted as it is (a report or a notice), not an event or an acknowledgement. */
export function isStoredMessage(r: OutboxEventRow): boolean {
  return r.event_id === null && r.incident_id === null;
}

/** The rows this round is about (see the header): a failure only touches these. */
export function roundRows(due: OutboxEventRow[]): OutboxEventRow[] {
  const first = due[0];
  if (!first) return [];
  return isStoredMessage(first) ? [first] : due.filter((r) => !isStoredMessage(r));
}

/** The event rows grouped by node, in order of first appearance, each in event-time order. */
export function groupByNode(rows: OutboxEventRow[]): NodeGroup[] {
  const groups = groupRows(rows);
  for (const g of groups) g.rows = sortByEventTime(g.rows);
  return groups;
}

/** As groupByNode, each group's rows still in the order given (planSteps sorts each as it comes to it). */
function groupRows(rows: OutboxEventRow[]): NodeGroup[] {
  const groups = new Map<string, NodeGroup>();
  for (const r of rows) {
    if (r.event_id === null) continue;
    const id = r.ev_node_id ?? '?';
    const g = groups.get(id) ?? { nodeId: id, nodeName: null, rows: [] };
    g.rows.push(r);
    if (r.ev_node_name) g.nodeName = r.ev_node_name;
    groups.set(id, g);
  }
  return [...groups.values()];
}

/** A row of what the activity poller saw (its own message; not part of a node's statuses). */
export const isActivity = (r: OutboxEventRow): boolean => !!r.ev_event_type?.startsWith(ACTIVITY_EVENT_PREFIX);

/**
 * Rows planned between two pauses of planSteps. A round holds up to 2,000 rows, which took
 * 6–28 ms to plan in one go inside the bot at 1,000 events/s, a stretch every webhook
 * request of that moment waited behind (issue 29); a slice of 250 is a few milliseconds.
 */
export const PLAN_SLICE_ROWS = 250;

export function planRound(due: OutboxEventRow[], state: RoundState): RoundAction[] {
  const steps = planSteps(due, state);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * planRound in slices: the generator pauses (yields) after every PLAN_SLICE_ROWS rows of node
 * groups planned and between digest parts, and returns the actions. The outbox worker lets
 * the event loop through at each pause; nothing it plans from changes meanwhile (the rows and
 * the state were read before).
 */
export function* planSteps(due: OutboxEventRow[], state: RoundState): Generator<void, RoundAction[], void> {
  const all = roundRows(due);
  const first = all[0];
  if (!first) return [];
  if (isStoredMessage(first)) return [{ kind: 'post-stored', rows: [first], json: first.message, threadId: first.thread_id }];

  const actions: RoundAction[] = [];
  // What the activity poller saw is its own message (its items' messages), not part of a status digest or incident.
  const activity = all.filter(isActivity);
  const rows = all.filter((r) => !isActivity(r));
  if (activity.length) {
    const items = activity.map((r) => {
      const stored = safeJson(r.ev_payload)?.message;
      return stored && typeof stored === 'object'
        ? (stored as Message)
        : eventMessage({ nodeId: r.ev_node_id ?? '?', nodeName: r.ev_node_name, eventType: r.ev_event_type ?? 'UNKNOWN' });
    });
    // A storm is posted in parts (each line shown, within the platforms' limits), as a status digest is.
    const parts = activityParts(items);
    parts.forEach((idx, p) => {
      actions.push({
        kind: 'post',
        rows: idx.map((i) => activity[i]),
        message: activityMessage(
          idx.map((i) => items[i]),
          idx.map((i) => activity[i].ev_event_type),
          { nodeNames: idx.map((i) => activity[i].ev_node_name), part: p + 1, parts: parts.length, total: items.length },
        ),
      });
    });
  }
  for (const r of rows) {
    if (r.event_id !== null || r.incident_id === null) continue;
    const inc = state.incidents.get(r.incident_id);
    actions.push({ kind: 'ack', rows: [r], incident: inc?.message_id ? inc : null, note: r.note });
  }

  const generic: Array<{ entry: DigestEntry; rows: OutboxEventRow[] }> = [];
  let opened = 0;
  let sinceYield = activity.length;
  for (const g of groupRows(rows)) {
    if (sinceYield >= PLAN_SLICE_ROWS) {
      sinceYield = 0;
      yield;
    }
    sinceYield += g.rows.length;
    g.rows = sortByEventTime(g.rows);
    const statuses = g.rows.map((r) => r.ev_status).filter((s): s is string => !!s);
    const changes = countChanges(state.previousStatus.get(g.nodeId), statuses);
    const last = statuses.at(-1);
    const otherTypes = [...new Set(g.rows.map((r) => r.ev_event_type ?? 'UNKNOWN').filter((t) => t !== 'NODE_STATUS_UPDATED'))];
    const entry = (lastStatus: string | undefined, note?: string): DigestEntry => ({
      nodeId: g.nodeId,
      nodeName: g.nodeName,
      lastStatus,
      changes,
      events: g.rows.length,
      otherTypes,
      note,
    });
    const newer = statuses.length ? newerKnownStatus(g, state.recentStatusEvents.get(g.nodeId) ?? []) : undefined;
    if (newer) {
      // A late delivery, or a newer event this channel's filter did not take: the node has moved on.
      const old = statuses.map((s) => statusBadge(s)).join(' → ');
      generic.push({
        entry: entry(newer.status, `older events (${old}), superseded by ${statusBadge(newer.status)} at ${newer.event_ts}`),
        rows: g.rows,
      });
      continue;
    }
    const inc = state.openIncidents.get(g.nodeId);
    if (inc?.message_id) {
      const update = planIncidentUpdate(inc, g, statuses, otherTypes, state.now);
      actions.push(update.action);
      if (update.note) generic.push({ entry: entry(last, update.note), rows: [] });
      continue;
    }
    if (inc || (last === 'FAILED' && opened < state.maxIncidentsPerRound)) {
      opened++;
      actions.push(planIncidentOpen(g, inc, changes, state.now));
      continue;
    }
    const note =
      last === 'FAILED' ? 'FAILED: too many failures at once to open an incident for each; use node logs / node start' : undefined;
    generic.push({ entry: entry(last, note), rows: g.rows });
  }
  if (!generic.length) return actions;

  const genericRows = generic.flatMap((x) => x.rows);
  const heldEvents = genericRows.filter((r) => r.held_by_mute).length;
  const muted = heldEvents > 0 && heldEvents === genericRows.length;
  if (genericRows.length === 1 && generic.length === 1 && !heldEvents && !generic[0].entry.note) {
    const r = genericRows[0];
    const message = eventMessage({
      nodeId: r.ev_node_id ?? '?',
      nodeName: r.ev_node_name,
      eventType: r.ev_event_type ?? 'UNKNOWN',
      status: r.ev_status,
      eventTs: r.ev_event_ts,
      payload: safeJson(r.ev_payload),
    });
    actions.push({ kind: 'post', rows: [r], message });
    return actions;
  }
  const size = Math.max(1, state.digestMaxNodes);
  const parts = Math.ceil(generic.length / size);
  for (let i = 0; i < parts; i++) {
    if (i > 0) yield;
    const chunk = generic.slice(i * size, (i + 1) * size);
    const totalEvents = chunk.reduce((n, x) => n + x.entry.events, 0);
    const message = digestMessage(
      chunk.map((x) => x.entry),
      { totalEvents, muted, heldEvents: muted ? undefined : heldEvents, part: i + 1, parts },
    );
    actions.push({ kind: 'post', rows: chunk.flatMap((x) => x.rows), message });
  }
  return actions;
}

function countChanges(previous: string | undefined, statuses: string[]): number {
  let changes = 0;
  let p = previous;
  for (const s of statuses) {
    if (s !== p) changes++;
    p = s;
  }
  return changes;
}

/** A stored status event of the node newer (by event time) than every status event of the group, if any. */
function newerKnownStatus(g: NodeGroup, recent: readonly StatusEvent[]): StatusEvent | undefined {
  const ours = new Set(g.rows.map((r) => r.event_id));
  const latestOurs = Math.max(
    ...g.rows
      .filter((r) => r.ev_status)
      .map((r) => (r.ev_event_ts ? Date.parse(r.ev_event_ts) : NaN))
      .filter(Number.isFinite),
  );
  if (!Number.isFinite(latestOurs)) return undefined;
  let best: { e: StatusEvent; t: number } | undefined;
  for (const e of recent) {
    if (ours.has(e.id)) continue;
    const t = Date.parse(e.event_ts);
    if (Number.isFinite(t) && t > latestOurs && (!best || t > best.t)) best = { e, t };
  }
  return best && { id: best.e.id, status: best.e.status, event_ts: best.e.event_ts };
}

/** Opening (or re-posting) the incident of a node whose latest status is FAILED. */
function planIncidentOpen(g: NodeGroup, existing: IncidentRow | undefined, changes: number, now: number): RoundAction {
  const last =
    g.rows
      .map((r) => r.ev_status)
      .filter(Boolean)
      .at(-1) ??
    existing?.last_status ??
    'FAILED';
  if (existing) {
    const resolvedAt = Math.max(existing.opened_at, eventTime(lastChangeTo(g.rows, 'RUNNING') ?? g.rows.at(-1)!, now));
    const patch: IncidentPatch =
      last === 'RUNNING' ? { last_status: last, state: 'resolved', resolved_at: resolvedAt } : { last_status: last };
    return { kind: 'open-incident', rows: g.rows, nodeId: g.nodeId, incident: { id: existing.id, patch } };
  }
  const create: NewIncident = {
    node_id: g.nodeId,
    node_name: g.nodeName,
    last_status: last,
    // When the node failed (the event's own time), not when the post goes out.
    opened_at: eventTime(lastChangeTo(g.rows, 'FAILED') ?? g.rows[0], now),
    changes: Math.max(0, changes - 1),
  };
  return { kind: 'open-incident', rows: g.rows, nodeId: g.nodeId, incident: { create } };
}

/** The update of an open incident, and a note for the digest when a repeat notification is due. */
function planIncidentUpdate(
  inc: IncidentRow,
  g: NodeGroup,
  statuses: string[],
  otherTypes: string[],
  now: number,
): { action: RoundAction; note?: string } {
  let prev = inc.last_status;
  let changes = 0;
  let refailed = false;
  for (const s of statuses) {
    if (s !== prev) {
      changes++;
      if (s === 'FAILED') refailed = true;
    }
    prev = s;
  }
  const last = statuses.at(-1) ?? inc.last_status;
  const resolved = last === 'RUNNING';
  // The duration runs to when the node was RUNNING again (the event's time), not to when this round posts.
  const resolvedAt = Math.max(inc.opened_at, eventTime(lastChangeTo(g.rows, 'RUNNING') ?? g.rows.at(-1)!, now));
  const patch: IncidentPatch = {
    last_status: last,
    changes: inc.changes + changes,
    ...(resolved ? { state: 'resolved' as const, resolved_at: resolvedAt } : {}),
  };
  const parts: string[] = [];
  if (statuses.length) parts.push(statuses.map((s) => statusBadge(s)).join(' → '));
  if (otherTypes.length) parts.push(`events: ${otherTypes.join(', ')}`);
  let line = `${g.nodeName ?? g.nodeId}: ${parts.join('; ') || `${g.rows.length} event(s)`}`;
  if (resolved) line += ` — resolved after ${formatDuration(resolvedAt - inc.opened_at)}`;
  const tone: Tone = resolved ? 'success' : last === 'FAILED' ? 'danger' : 'info';
  const action: RoundAction = { kind: 'update-incident', rows: g.rows, incident: inc, patch, edit: statuses.length > 0, line, tone };
  return refailed && !resolved && !inc.acked_by ? { action, note: `failed again; incident #${inc.id} is not acknowledged` } : { action };
}
