/**
 * Migration 205 on a database the previous version left with events in it, some stored by the
 * webhook and not yet routed (route_pending), on both engines: after the upgrade the router
 * routes every one of them, once, with the status each node had before it, and the per-node
 * rows start from what was stored (issue 29: the per-node table and, on SQLite, the cursor
 * that replace the per-node index and the per-row marks).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log.js';
import { readRoundState } from '../../src/notify/execute-round.js';
import { createEventRouter } from '../../src/notify/route-pending.js';
import { NotifyStore, openDatabase, openPostgres, type AnyDb, type EventRow } from '../../src/store/index.js';
import { allMigrations } from '../../src/store/migrations/index.js';
import { ENGINES, newPostgresUrl, type EngineName } from '../support/databases.js';
import { newWatch } from '../support/watch-row.js';

const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

const BEFORE = allMigrations.filter((m) => m.version !== 205);

/** A database on `engine` as the previous version left it (`migrations`), then the same database opened again by this one. */
async function database(engine: EngineName): Promise<{ old: AnyDb; reopen: () => Promise<AnyDb> }> {
  if (engine === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'rln-m205-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const path = join(dir, 'bot.db');
    return {
      old: openDatabase(path, BEFORE),
      reopen: async () => {
        const db = openDatabase(path);
        cleanup.push(() => db.close());
        return db;
      },
    };
  }
  const url = await newPostgresUrl('m205');
  return {
    old: await openPostgres(url, { migrations: BEFORE }),
    reopen: async () => {
      const db = await openPostgres(url);
      cleanup.push(() => db.close());
      return db;
    },
  };
}

const T0 = Date.UTC(2026, 10, 27, 12, 0, 0);
const ev = (i: number, nodeId: string, status: string | null, pending: boolean): Omit<EventRow, 'id'> => ({
  dedupe_key: `m205-${i}`,
  node_id: nodeId,
  node_name: null,
  event_type: status ? 'NODE_STATUS_UPDATED' : 'NODE_CREATED',
  status,
  event_ts: new Date(T0 + i * 1000).toISOString(),
  received_at: T0 + i * 1000,
  payload: '{}',
  event_ms: T0 + i * 1000,
  route_pending: pending ? 1 : null,
});

describe.each(ENGINES)('migration 205 on %s, over events stored by the previous version', (engine) => {
  it('routes every event left pending, once, with its previous status; the per-node rows start from the stored events', async () => {
    const { old, reopen } = await database(engine);
    const before = new NotifyStore(old);
    await before.upsertWatch(newWatch());
    // As the previous version left them: n1 RUNNING routed (its outbox row without prev_status),
    // then FAILED and RUNNING pending; n2 FAILED routed; n3 STOPPED pending; an event without a
    // status pending (n2); and more pending than one router chunk (n4).
    const ids: number[] = [];
    const store = async (i: number, nodeId: string, status: string | null, pending: boolean) =>
      ids.push((await before.insertEvent(ev(i, nodeId, status, pending)))!);
    await store(1, 'n1', 'RUNNING', false);
    await old.run(
      `INSERT INTO notify_outbox (platform, channel_id, kind, event_id, state, held_by_mute, next_attempt_at, created_at) VALUES ('slack', 'C1', 'event', ?, 'pending', 0, ?, ?)`,
      [ids[0], T0, T0],
    );
    await store(2, 'n1', 'FAILED', true);
    await store(3, 'n2', 'FAILED', false);
    await store(4, 'n1', 'RUNNING', true);
    await store(5, 'n3', 'STOPPED', true);
    await store(6, 'n2', null, true);
    for (let i = 0; i < 12; i++) await store(10 + i, 'n4', i % 2 ? 'RUNNING' : 'STOPPED', true);
    const pending = ids.filter((_, i) => i !== 0 && i !== 2);
    await old.close();

    const db = await reopen();
    const s = new NotifyStore(db);
    // The per-node rows, from every event stored (pending ones too).
    const nodes = await s.nodeStates(['n1', 'n2', 'n3', 'n4']);
    expect(nodes.get('n1')).toMatchObject({ last_id: ids[3], last_status: 'RUNNING', newest_id: ids[3], newest_ms: null });
    expect(nodes.get('n2')).toMatchObject({ last_id: ids[2], last_status: 'FAILED' });
    expect(nodes.get('n3')).toMatchObject({ last_id: ids[4], last_status: 'STOPPED' });
    expect(await s.eventsToRouteCount()).toBe(pending.length);

    const router = createEventRouter({ store: s, now: () => T0 + 60_000, log: silentLogger, chunk: 5 });
    expect(await router.routePending()).toBe(true);
    expect(await s.eventsToRouteCount()).toBe(0);
    expect(await router.routePending()).toBe(true);
    const rows = (await s.outboxRows()).filter((r) => r.event_id !== ids[0]);
    // Every pending event routed, once.
    expect(rows.map((r) => r.event_id).sort((a, b) => a! - b!)).toEqual(pending);
    const prevOf = (id: number) => rows.find((r) => r.event_id === id)?.prev_status;
    expect(prevOf(ids[1])).toBe('RUNNING');
    expect(prevOf(ids[3])).toBe('FAILED');
    expect(prevOf(ids[4])).toBe('');
    expect(prevOf(ids[5])).toBe('FAILED');
    expect(pending.slice(4).map(prevOf)).toEqual(['', ...Array.from({ length: 11 }, (_, i) => (i % 2 ? 'RUNNING' : 'STOPPED'))]);

    // An event stored now is routed from the node's row, which routing brought up to date.
    const next = (await s.insertEvent(ev(30, 'n1', 'STOPPED', true)))!;
    expect(await router.routePending()).toBe(true);
    expect((await s.outboxRows()).find((r) => r.event_id === next)?.prev_status).toBe('RUNNING');
    expect((await s.nodeStates(['n1'])).get('n1')).toMatchObject({ last_id: next, last_status: 'STOPPED', newest_id: next });

    // A round over them: the outbox row stored before the upgrade reads its previous status from the events.
    const due = await s.duePending('slack', 'C1', T0 + 3600_000);
    const state = await readRoundState(s, 'slack', 'C1', due, T0 + 3600_000, { maxIncidentsPerRound: 5, digestMaxNodes: 40 });
    expect(state.previousStatus.get('n1')).toBeUndefined();
    expect(state.previousStatus.get('n2')).toBe('FAILED');
    expect(state.previousStatus.get('n3')).toBeUndefined();
    expect(state.previousStatus.get('n4')).toBeUndefined();
    expect(state.recentStatusEvents.get('n1')).toEqual([{ id: next, status: 'STOPPED', event_ts: new Date(T0 + 30_000).toISOString() }]);
  });
});
