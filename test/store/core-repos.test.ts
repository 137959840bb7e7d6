/**
 * The core and http rooms' repositories on both engines: the same answers, and the guarantees
 * that must hold when several replicas share one PostgreSQL database (a confirmation, a dialog
 * and an approval are claimed once; a signed request is remembered once; two spends cannot both
 * take the last of a limit). On PostgreSQL the concurrent calls go through two handles (two
 * connection pools, as two replicas would), alternately.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createApprovalStore,
  createAuditStore,
  createButtonStore,
  createConfirmationStore,
  createDialogStore,
  createPolicyStore,
  createReplayStore,
  createRoleGrantStore,
  openDatabase,
  openPostgres,
  type AnyDb,
  type AuditRow,
  type SpendRow,
} from '../../src/store/index.js';
import { ENGINES, newPostgresUrl, type EngineName } from '../support/databases.js';

/** Two handles on one database: two pools on PostgreSQL (two replicas); SQLite has one process. */
async function openPair(engine: EngineName): Promise<[AnyDb, AnyDb]> {
  if (engine === 'sqlite') {
    const db = openDatabase(':memory:');
    return [db, db];
  }
  const url = await newPostgresUrl('core');
  return [await openPostgres(url), await openPostgres(url)];
}

const N = 10;

describe.each(ENGINES)('core and http repositories on %s', (engine) => {
  let db: AnyDb;
  let other: AnyDb;
  /** The i-th of N concurrent callers: alternately on each handle. */
  const on = (i: number) => (i % 2 ? other : db);
  beforeAll(async () => {
    [db, other] = await openPair(engine);
  });
  afterAll(async () => {
    if (other !== db) await other.close();
    await db.close();
  });

  it('buttons: inserts, reads back, replaces by id and deletes the expired', async () => {
    const s = createButtonStore(db);
    await s.insert({ id: 'b1', command: 'node status', argsJson: '{"node":"alice"}', createdAt: 1_000, expiresAt: 2_000 });
    await s.insert({ id: 'b2', command: 'pay send', argsJson: '{}', createdAt: 1_000, expiresAt: 9_000_000_000_000 });
    expect(await s.get('b1')).toEqual({
      id: 'b1',
      command: 'node status',
      argsJson: '{"node":"alice"}',
      createdAt: 1_000,
      expiresAt: 2_000,
    });
    await s.insert({ id: 'b1', command: 'node info', argsJson: '{}', createdAt: 1_500, expiresAt: 2_500 });
    expect((await s.get('b1'))?.command).toBe('node info');
    expect(await s.get('nope')).toBeUndefined();
    expect(await s.deleteExpired(3_000)).toBe(1);
    expect(await s.get('b1')).toBeUndefined();
    expect((await s.get('b2'))?.expiresAt).toBe(9_000_000_000_000);
  });

  it('confirmations: read back, and of concurrent claims exactly one wins', async () => {
    const row = {
      id: 'c1',
      requesterJson: '{"platform":"slack","userId":"U1"}',
      requesterKey: 'slack:U1',
      placeJson: '{"platform":"slack","channelId":"C1"}',
      path: 'node stop',
      argsJson: '{"node":"alice"}',
      createdAt: 1_000,
      expiresAt: 301_000,
    };
    await createConfirmationStore(db).insert(row);
    expect(await createConfirmationStore(other).get('c1')).toEqual({ ...row, usedAt: null, outcome: null });
    const wins = await Promise.all(
      Array.from({ length: N }, (_, i) => createConfirmationStore(on(i)).claim('c1', 2_000 + i, `click ${i}`)),
    );
    expect(wins.filter(Boolean)).toHaveLength(1);
    const used = await createConfirmationStore(db).get('c1');
    expect(used?.usedAt).toBe(2_000 + wins.indexOf(true));
    expect(used?.outcome).toBe(`click ${wins.indexOf(true)}`);
    expect(await createConfirmationStore(db).claim('c1', 9_000, 'late')).toBe(false);
    expect(await createConfirmationStore(db).deleteExpired(301_001)).toBe(1);
    expect(await createConfirmationStore(db).get('c1')).toBeUndefined();
  });

  it('dialogs: read back, and of concurrent submissions exactly one claims it', async () => {
    const row = {
      id: 'd1',
      kind: 'typed-name' as const,
      requesterJson: '{}',
      requesterKey: 'discord:42',
      placeJson: '{}',
      path: 'node destroy',
      argsJson: '{"node":"bob"}',
      createdAt: 5,
      expiresAt: 10,
    };
    await createDialogStore(db).insert(row);
    expect(await createDialogStore(other).get('d1')).toEqual({ ...row, usedAt: null });
    const wins = await Promise.all(Array.from({ length: N }, (_, i) => createDialogStore(on(i)).claim('d1', 7)));
    expect(wins.filter(Boolean)).toHaveLength(1);
    expect((await createDialogStore(db).get('d1'))?.usedAt).toBe(7);
    expect(await createDialogStore(db).deleteExpired(10)).toBe(0);
    expect(await createDialogStore(db).deleteExpired(11)).toBe(1);
  });

  it('approvals: decided once under concurrency, never after expiry, and listed while pending', async () => {
    const s = createApprovalStore(db);
    const base = {
      requesterJson: '{}',
      requesterKey: 'slack:U1',
      placeJson: '{}',
      path: 'pay send',
      argsJson: '{"amount":"10 sats"}',
      node: 'alice',
      summaryJson: '[]',
      createdAt: 1_000,
      expiresAt: 10_000,
    };
    await s.insert({ ...base, id: 'a1' });
    await s.insert({ ...base, id: 'a2', node: null, createdAt: 1_001 });
    await s.insert({ ...base, id: 'a3', createdAt: 1_002 });
    expect((await s.pending(5_000)).map((r) => r.id)).toEqual(['a1', 'a2', 'a3']);
    expect(await s.get('a2')).toEqual({
      ...base,
      id: 'a2',
      node: null,
      createdAt: 1_001,
      state: 'pending',
      decidedBy: null,
      decidedAt: null,
      reason: null,
    });

    const wins = await Promise.all(
      Array.from({ length: N }, (_, i) =>
        createApprovalStore(on(i)).decide('a1', i % 3 ? 'approved' : 'rejected', `slack:U${i + 10}`, 2_000, i % 3 ? undefined : 'no'),
      ),
    );
    expect(wins.filter(Boolean)).toHaveLength(1);
    const winner = wins.indexOf(true);
    const a1 = await s.get('a1');
    expect(a1).toMatchObject({ state: winner % 3 ? 'approved' : 'rejected', decidedBy: `slack:U${winner + 10}`, decidedAt: 2_000 });
    expect(await s.decide('a1', 'approved', 'slack:U99', 2_001)).toBe(false);

    // Past its time, no click decides it; expiring it is once too.
    expect(await s.decide('a2', 'approved', 'slack:U2', 10_001)).toBe(false);
    expect(await s.expire('a2', 10_001)).toBe(true);
    expect(await s.expire('a2', 10_002)).toBe(false);
    expect((await s.get('a2'))?.state).toBe('expired');
    expect((await s.pending(5_000)).map((r) => r.id)).toEqual(['a3']);
    expect(await s.pending(10_001)).toEqual([]);
  });

  it('audit: insert returns increasing ids; latest and query filter; prune deletes the old', async () => {
    const s = createAuditStore(db);
    const row = (o: Partial<Omit<AuditRow, 'id'>>): Omit<AuditRow, 'id'> => ({
      at: '2026-01-01T00:00:00.000Z',
      actorPlatform: 'slack',
      actorId: 'U1',
      actorName: 'Ann',
      placePlatform: 'slack',
      placeChannel: 'C1',
      path: 'node stop',
      node: 'Alice',
      nodeId: 'n-alice',
      argsJson: '{"node":"Alice"}',
      outcome: 'ok',
      reason: null,
      ...o,
    });
    const id1 = await s.insert(row({}));
    const id2 = await s.insert(
      row({
        at: '2026-02-01T00:00:00.000Z',
        actorPlatform: 'discord',
        actorId: '42',
        actorName: null,
        path: 'pay send',
        node: 'bob',
        nodeId: 'n-bob',
        outcome: 'refused',
        reason: 'limit',
      }),
    );
    const id3 = await s.insert(
      row({
        at: '2026-03-01T00:00:00.000Z',
        path: 'approval request',
        node: null,
        nodeId: null,
        argsJson: '{"action":"pay.send","approval":"a_1"}',
      }),
    );
    expect(id1).toBeGreaterThan(0);
    expect(id2).toBeGreaterThan(id1);
    expect(id3).toBeGreaterThan(id2);

    const ids = (rows: AuditRow[]) => rows.map((r) => r.id);
    expect(ids(await s.latest({ limit: 10 }))).toEqual([id3, id2, id1]);
    expect(ids(await s.latest({ limit: 2 }))).toEqual([id3, id2]);
    expect(ids(await s.latest({ node: 'alice', limit: 10 }))).toEqual([id1]);
    expect(ids(await s.latest({ node: 'n-bob', limit: 10 }))).toEqual([id2]);
    const first = (await s.latest({ node: 'Alice', limit: 1 }))[0];
    expect(first).toEqual({ id: id1, ...row({}) });

    expect(ids(await s.query({ limit: 50 }))).toEqual([id3, id2, id1]);
    expect(ids(await s.query({ user: 'discord:42', limit: 50 }))).toEqual([id2]);
    expect(ids(await s.query({ user: 'U1', limit: 50 }))).toEqual([id3, id1]);
    expect(ids(await s.query({ action: 'pay send', limit: 50 }))).toEqual([id3, id2]);
    expect(ids(await s.query({ outcome: 'refused', limit: 50 }))).toEqual([id2]);
    expect(ids(await s.query({ since: '2026-02-01T00:00:00.000Z', limit: 50 }))).toEqual([id3, id2]);
    expect(ids(await s.query({ node: 'ALICE', user: 'slack:U1', outcome: 'ok', limit: 50 }))).toEqual([id1]);
    expect(ids(await s.query({ node: 'bob', outcome: 'ok', limit: 50 }))).toEqual([]);

    expect(await s.prune('2026-02-15T00:00:00.000Z')).toBe(2);
    expect(ids(await s.latest({ limit: 10 }))).toEqual([id3]);
  });

  it('role grants: put replaces, scopes read back, getMany reads several, remove says whether there was one', async () => {
    const s = createRoleGrantStore(db);
    await s.put({ principal: 'slack:U1', role: 'operate', grantedBy: 'shell:local', grantedAt: '2026-01-01T00:00:00.000Z' });
    await s.put({
      principal: 'slack-group:S1',
      role: 'admin',
      grantedBy: 'shell:local',
      grantedAt: '2026-01-01T00:00:00.000Z',
      nodes: 'alice,bob',
      channels: 'C1',
    });
    expect(await s.get('slack:U1')).toEqual({
      principal: 'slack:U1',
      role: 'operate',
      grantedBy: 'shell:local',
      grantedAt: '2026-01-01T00:00:00.000Z',
      nodes: null,
      channels: null,
    });
    await s.put({ principal: 'slack:U1', role: 'read', grantedBy: 'slack:U9', grantedAt: '2026-01-02T00:00:00.000Z', nodes: 'alice' });
    expect(await s.get('slack:U1')).toMatchObject({ role: 'read', grantedBy: 'slack:U9', nodes: 'alice', channels: null });
    expect((await s.getMany(['slack:U1', 'slack-group:S1', 'slack:nobody'])).map((g) => g.principal).sort()).toEqual([
      'slack-group:S1',
      'slack:U1',
    ]);
    expect(await s.getMany(['slack:nobody'])).toEqual([]);
    expect(await s.getMany([])).toEqual([]);
    expect((await s.all()).map((g) => g.principal)).toEqual(['slack-group:S1', 'slack:U1']);
    expect(await s.remove('slack:U1')).toBe(true);
    expect(await s.remove('slack:U1')).toBe(false);
    expect(await s.get('slack:U1')).toBeUndefined();
  });

  it('policy rules: put replaces by (kind, subject, unit) and reads back in order', async () => {
    const s = createPolicyStore(db);
    await s.putRule({ kind: 'limit', subject: 'operate', unit: 'sat', amount: 500_000, off: 0, setBy: 'slack:U1', setAt: 't1' });
    await s.putRule({ kind: 'approval', subject: 'pay.send', unit: '', amount: null, off: 0, setBy: 'slack:U1', setAt: 't1' });
    await s.putRule({ kind: 'approval', subject: 'asset.send', unit: '*', amount: 0.5, off: 0, setBy: 'slack:U1', setAt: 't1' });
    await s.putRule({ kind: 'limit', subject: 'operate', unit: 'sat', amount: 250_000, off: 1, setBy: 'slack:U2', setAt: 't2' });
    expect(await s.rules()).toEqual([
      { kind: 'approval', subject: 'asset.send', unit: '*', amount: 0.5, off: 0, setBy: 'slack:U1', setAt: 't1' },
      { kind: 'approval', subject: 'pay.send', unit: '', amount: null, off: 0, setBy: 'slack:U1', setAt: 't1' },
      { kind: 'limit', subject: 'operate', unit: 'sat', amount: 250_000, off: 1, setBy: 'slack:U2', setAt: 't2' },
    ]);
  });

  it('spend ledger: reserves against what was spent, sums per unit, releases', async () => {
    const s = createPolicyStore(db);
    const spend = (o: Partial<SpendRow>): SpendRow => ({
      who: 'slack:U1',
      unit: 'sat',
      amount: 100,
      day: '2026-11-22',
      at: 1,
      path: 'pay send',
      ...o,
    });
    const limit = (max: number) => (row: SpendRow, spent: number) => spent + row.amount <= max;
    const r1 = await s.reserve([spend({}), spend({ unit: 'USDT', amount: 2.5 })], limit(1_000));
    expect('ids' in r1 && r1.ids).toHaveLength(2);
    const r2 = await s.reserve([spend({ amount: 901 })], limit(1_000));
    expect('refused' in r2 && r2).toEqual({ refused: spend({ amount: 901 }), spent: 100 });
    await s.reserve([spend({ day: '2026-11-23', amount: 999 })], limit(1_000));
    await s.reserve([spend({ who: 'slack:U2', amount: 999 })], limit(1_000));
    expect(await s.spent('slack:U1', '2026-11-22')).toEqual([
      { unit: 'USDT', amount: 2.5 },
      { unit: 'sat', amount: 100 },
    ]);
    // A refusal of a later row adds none of the rows.
    const r3 = await s.reserve([spend({ unit: 'USDT', amount: 1 }), spend({ amount: 901 })], limit(1_000));
    expect('refused' in r3 && r3.refused.unit).toBe('sat');
    expect(await s.spent('slack:U1', '2026-11-22')).toEqual([
      { unit: 'USDT', amount: 2.5 },
      { unit: 'sat', amount: 100 },
    ]);
    if ('ids' in r1) for (const id of r1.ids) await s.release(id);
    expect(await s.spent('slack:U1', '2026-11-22')).toEqual([]);
  });

  it('spend ledger: of concurrent spends against one limit, only as many pass as fit', async () => {
    // A few rounds, each for another person: a race that is lost only sometimes still shows.
    for (const who of ['discord:77', 'discord:78', 'discord:79']) {
      const row: SpendRow = { who, unit: 'sat', amount: 300, day: '2026-11-22', at: 1, path: 'pay send' };
      // 1,000 a day: three of 300 fit, the other seven must be refused.
      const results = await Promise.all(
        Array.from({ length: N }, (_, i) => createPolicyStore(on(i)).reserve([{ ...row, at: i }], (r, spent) => spent + r.amount <= 1_000)),
      );
      expect(results.filter((r) => 'ids' in r)).toHaveLength(3);
      expect(results.filter((r) => 'refused' in r)).toHaveLength(N - 3);
      expect(await createPolicyStore(db).spent(who, '2026-11-22')).toEqual([{ unit: 'sat', amount: 900 }]);
    }
  });

  it('replay guard: of concurrent remembers of one key exactly one is first; an expired key is taken anew', async () => {
    const wins = await Promise.all(Array.from({ length: N }, (_, i) => createReplayStore(on(i)).remember('slack:sig1', 600_000, 1_000)));
    expect(wins.filter(Boolean)).toHaveLength(1);
    const s = createReplayStore(db);
    expect(await s.remember('slack:sig1', 600_000, 2_000)).toBe(false);
    expect(await s.remember('slack:sig2', 600_000, 2_000)).toBe(true);
    // Past its time, the same key is a new request (its row is reused).
    expect(await s.remember('slack:sig1', 1_200_000, 600_000)).toBe(true);
    expect(await s.remember('slack:sig1', 1_200_000, 600_001)).toBe(false);
    expect(await s.prune(600_000)).toBe(1);
    expect(await s.prune(1_200_000)).toBe(1);
  });
});
