// planRound is pure: a table of rounds (the rows due in one channel and what the store knew)
// and the actions it plans. No database, no chat, no timers.
import { describe, expect, it } from 'vitest';
import { PLAN_SLICE_ROWS, planRound, planSteps, type RoundAction, type RoundState, type StatusEvent } from '../../src/notify/plan-round.js';
import type { IncidentRow, OutboxEventRow } from '../../src/store/index.js';

const T0 = Date.UTC(2026, 3, 16, 12, 0, 0);
const at = (s: number) => new Date(T0 + s * 1000).toISOString();
const NOW = T0 + 3600_000;

let seq = 0;
function row(over: Partial<OutboxEventRow>): OutboxEventRow {
  const id = ++seq;
  return {
    id,
    thread_id: null,
    kind: 'event',
    event_id: null,
    incident_id: null,
    message: null,
    note: null,
    dedupe_key: null,
    held_by_mute: 0,
    attempts: 0,
    created_at: T0,
    prev_status: null,
    ev_node_id: null,
    ev_node_name: null,
    ev_event_type: null,
    ev_status: null,
    ev_event_ts: null,
    ev_received_at: null,
    ev_payload: null,
    ...over,
  };
}

/** A status event of `node` at second `s` (event ids follow arrival). */
const ev = (node: string, status: string, s: number, over: Partial<OutboxEventRow> = {}) =>
  row({
    event_id: 1000 + seq,
    ev_node_id: node,
    ev_node_name: node,
    ev_event_type: 'NODE_STATUS_UPDATED',
    ev_status: status,
    ev_event_ts: at(s),
    ev_received_at: T0 + s * 1000,
    ...over,
  });
const report = (thread: string | null = null) =>
  row({ kind: 'report', message: JSON.stringify({ header: 'Balances', blocks: [] }), thread_id: thread });
const ack = (incidentId: number, note: string | null) => row({ kind: 'ack', incident_id: incidentId, note });

function incident(over: Partial<IncidentRow>): IncidentRow {
  return {
    id: 7,
    platform: 'slack',
    channel_id: 'C1',
    node_id: 'alice',
    node_name: 'alice',
    state: 'open',
    last_status: 'FAILED',
    opened_at: T0,
    resolved_at: null,
    message_id: 'm1',
    thread_id: null,
    acked_by: null,
    acked_at: null,
    changes: 0,
    ...over,
  };
}

function state(
  over: {
    previous?: Record<string, string>;
    open?: IncidentRow[];
    recent?: Record<string, StatusEvent[]>;
    incidents?: IncidentRow[];
    maxIncidentsPerRound?: number;
    digestMaxNodes?: number;
  } = {},
): RoundState {
  return {
    now: NOW,
    previousStatus: new Map(Object.entries(over.previous ?? {})),
    openIncidents: new Map((over.open ?? []).map((i) => [i.node_id, i])),
    recentStatusEvents: new Map(Object.entries(over.recent ?? {})),
    incidents: new Map((over.incidents ?? []).map((i) => [i.id, i])),
    maxIncidentsPerRound: over.maxIncidentsPerRound ?? 5,
    digestMaxNodes: over.digestMaxNodes ?? 40,
  };
}

/** An action as the table reads it: its kind, its rows, and what it would show. */
function seen(a: RoundAction, rows: OutboxEventRow[]) {
  const ids = a.rows.map((r) => rows.indexOf(r));
  switch (a.kind) {
    case 'post-stored':
      return { kind: a.kind, rows: ids, threadId: a.threadId };
    case 'post': {
      const table = a.message.blocks.find((b) => b.type === 'table');
      const notes = table && table.type === 'table' ? table.table.rows.map((r) => `${r[0]}: ${r[4]}`) : [];
      return { kind: a.kind, rows: ids, header: a.message.header, notes };
    }
    case 'ack':
      return { kind: a.kind, rows: ids, incident: a.incident?.id ?? null, note: a.note };
    case 'open-incident':
      return { kind: a.kind, rows: ids, incident: a.incident };
    case 'update-incident':
      return { kind: a.kind, rows: ids, incident: a.incident.id, patch: a.patch, edit: a.edit, line: a.line, tone: a.tone };
  }
}

interface Case {
  name: string;
  due: () => OutboxEventRow[];
  state?: Parameters<typeof state>[0];
  expected: ReturnType<typeof seen>[];
}

const cases: Case[] = [
  {
    name: 'posts a report on its own, in its thread, leaving the events behind it for the next round',
    due: () => [report('T9'), ev('alice', 'STOPPED', 1)],
    expected: [{ kind: 'post-stored', rows: [0], threadId: 'T9' }],
  },
  {
    name: 'leaves a report waiting behind events for a round of its own',
    due: () => [ev('alice', 'STOPPED', 1), report()],
    expected: [{ kind: 'post', rows: [0], header: 'alice: ⚪ STOPPED', notes: [] }],
  },
  {
    name: 'posts one event as one message',
    due: () => [ev('alice', 'RUNNING', 1)],
    state: { previous: { alice: 'STARTING' } },
    expected: [{ kind: 'post', rows: [0], header: 'alice: 🟢 RUNNING', notes: [] }],
  },
  {
    name: 'opens an incident for a node whose latest status is FAILED, dated when it failed',
    due: () => [ev('alice', 'STARTING', 1), ev('alice', 'FAILED', 2)],
    state: { previous: { alice: 'RUNNING' } },
    expected: [
      {
        kind: 'open-incident',
        rows: [0, 1],
        incident: { create: { node_id: 'alice', node_name: 'alice', last_status: 'FAILED', opened_at: T0 + 2000, changes: 1 } },
      },
    ],
  },
  {
    name: 'orders a node’s events by their own time, so a late RUNNING does not hide a later FAILED',
    due: () => [ev('alice', 'FAILED', 5), ev('alice', 'RUNNING', 3)],
    state: { previous: { alice: 'RUNNING' } },
    expected: [
      {
        kind: 'open-incident',
        rows: [1, 0],
        incident: { create: { node_id: 'alice', node_name: 'alice', last_status: 'FAILED', opened_at: T0 + 5000, changes: 0 } },
      },
    ],
  },
  {
    name: 'opens at most maxIncidentsPerRound incidents and names the other failures in a digest',
    due: () => [ev('a', 'FAILED', 1), ev('b', 'FAILED', 2), ev('c', 'FAILED', 3)],
    state: { maxIncidentsPerRound: 2 },
    expected: [
      {
        kind: 'open-incident',
        rows: [0],
        incident: { create: { node_id: 'a', node_name: 'a', last_status: 'FAILED', opened_at: T0 + 1000, changes: 0 } },
      },
      {
        kind: 'open-incident',
        rows: [1],
        incident: { create: { node_id: 'b', node_name: 'b', last_status: 'FAILED', opened_at: T0 + 2000, changes: 0 } },
      },
      {
        kind: 'post',
        rows: [2],
        header: '1 event on 1 node',
        notes: ['c: FAILED: too many failures at once to open an incident for each; use node logs / node start'],
      },
    ],
  },
  {
    name: 'updates an open incident in place and resolves it when the node is RUNNING again, timed by the event',
    due: () => [ev('alice', 'STARTING', 60), ev('alice', 'RUNNING', 90)],
    state: { open: [incident({})] },
    expected: [
      {
        kind: 'update-incident',
        rows: [0, 1],
        incident: 7,
        patch: { last_status: 'RUNNING', changes: 2, state: 'resolved', resolved_at: T0 + 90_000 },
        edit: true,
        line: 'alice: 🔵 STARTING → 🟢 RUNNING — resolved after 1m 30s',
        tone: 'success',
      },
    ],
  },
  {
    name: 'names a repeat failure of an unacknowledged incident in the digest after updating it',
    due: () => [ev('alice', 'STARTING', 10), ev('alice', 'FAILED', 20)],
    state: { open: [incident({})] },
    expected: [
      {
        kind: 'update-incident',
        rows: [0, 1],
        incident: 7,
        patch: { last_status: 'FAILED', changes: 2 },
        edit: true,
        line: 'alice: 🔵 STARTING → 🔴 FAILED',
        tone: 'danger',
      },
      { kind: 'post', rows: [], header: '2 events on 1 node', notes: ['alice: failed again; incident #7 is not acknowledged'] },
    ],
  },
  {
    name: 'does not repeat a failure of an acknowledged incident',
    due: () => [ev('alice', 'STARTING', 10), ev('alice', 'FAILED', 20)],
    state: { open: [incident({ acked_by: 'slack:U1', acked_at: T0 })] },
    expected: [
      {
        kind: 'update-incident',
        rows: [0, 1],
        incident: 7,
        patch: { last_status: 'FAILED', changes: 2 },
        edit: true,
        line: 'alice: 🔵 STARTING → 🔴 FAILED',
        tone: 'danger',
      },
    ],
  },
  {
    name: 'adds a thread line without editing the incident for events that carry no status',
    due: () => [row({ event_id: 1, ev_node_id: 'alice', ev_node_name: 'alice', ev_event_type: 'NODE_UPGRADED', ev_event_ts: at(5) })],
    state: { open: [incident({})] },
    expected: [
      {
        kind: 'update-incident',
        rows: [0],
        incident: 7,
        patch: { last_status: 'FAILED', changes: 0 },
        edit: false,
        line: 'alice: events: NODE_UPGRADED',
        tone: 'danger',
      },
    ],
  },
  {
    name: 'posts again the message of an open incident whose message is gone, whatever the status',
    due: () => [ev('alice', 'STARTING', 5)],
    state: { open: [incident({ message_id: null })] },
    expected: [{ kind: 'open-incident', rows: [0], incident: { id: 7, patch: { last_status: 'STARTING' } } }],
  },
  {
    name: 'shows superseded events in the digest with the node’s latest known status, opening no incident',
    due: () => [ev('alice', 'FAILED', 10)],
    state: { recent: { alice: [{ id: 99, status: 'RUNNING', event_ts: at(30) }] } },
    expected: [
      {
        kind: 'post',
        rows: [0],
        header: '1 event on 1 node',
        notes: [`alice: older events (🔴 FAILED), superseded by 🟢 RUNNING at ${at(30)}`],
      },
    ],
  },
  {
    name: 'summarises events held by a mute in one digest, even a single one',
    due: () => [ev('alice', 'STOPPED', 1, { held_by_mute: 1 })],
    expected: [{ kind: 'post', rows: [0], header: '1 event on 1 node while muted', notes: ['alice: '] }],
  },
  {
    name: 'splits a digest every digestMaxNodes nodes',
    due: () => [ev('a', 'STOPPED', 1), ev('b', 'STOPPED', 2), ev('c', 'STOPPED', 3), ev('a', 'RUNNING', 4)],
    state: { digestMaxNodes: 2 },
    expected: [
      { kind: 'post', rows: [0, 3, 1], header: '3 events on 2 nodes (part 1/2)', notes: ['a: ', 'b: '] },
      { kind: 'post', rows: [2], header: '1 event on 1 node (part 2/2)', notes: ['c: '] },
    ],
  },
  {
    name: 'refreshes an acknowledged incident before the events, and only marks an acknowledgement whose incident has no message',
    due: () => [ack(7, 'acknowledged by Ann'), ack(8, null), ev('bob', 'RUNNING', 1)],
    state: { incidents: [incident({}), incident({ id: 8, node_id: 'carol', message_id: null })] },
    expected: [
      { kind: 'ack', rows: [0], incident: 7, note: 'acknowledged by Ann' },
      { kind: 'ack', rows: [1], incident: null, note: null },
      { kind: 'post', rows: [2], header: 'bob: 🟢 RUNNING', notes: [] },
    ],
  },
  {
    name: 'plans nothing when nothing is due',
    due: () => [],
    expected: [],
  },
];

describe('planRound', () => {
  it.each(cases)('$name', ({ due, state: s, expected }) => {
    const rows = due();
    const actions = planRound(rows, state(s));
    expect(actions.map((a) => seen(a, rows))).toEqual(expected);
  });

  it('plans a large round in slices (planSteps), ending with what planRound plans', () => {
    // 2,000 rows of 100 nodes (20 each): the last event of n99 FAILED (an incident), n2 superseded
    // by a newer stored event, the rest a digest in 3 parts (40 nodes a part).
    const rows: OutboxEventRow[] = [];
    for (let i = 0; i < 2_000; i++) rows.push(ev(`n${i % 100}`, i === 1_999 ? 'FAILED' : i % 3 ? 'RUNNING' : 'STOPPED', i + 1));
    const s = state({ previous: { n1: 'RUNNING' }, recent: { n2: [{ id: 1, status: 'RUNNING', event_ts: at(5_000) }] } });
    const steps = planSteps(rows, s);
    let pauses = 0;
    let step = steps.next();
    for (; !step.done; step = steps.next()) pauses++;
    expect(step.value.map((a) => a.kind)).toEqual(['open-incident', 'post', 'post', 'post']);
    // A slice ends once PLAN_SLICE_ROWS (250) rows of groups are planned: every 13 groups of 20
    // rows, 7 pauses; then one between each two of the digest's 3 parts.
    expect(PLAN_SLICE_ROWS).toBe(250);
    expect(pauses).toBe(7 + 2);
    expect(step.value).toEqual(planRound(rows, s));
  });

  it('decides the same round twice from the same rows and state (no hidden state)', () => {
    const rows = [ev('a', 'FAILED', 1), ev('b', 'STOPPED', 2), ev('c', 'RUNNING', 3)];
    const s = state({ previous: { c: 'STOPPED' } });
    expect(planRound(rows, s)).toEqual(planRound(rows, s));
  });
});
