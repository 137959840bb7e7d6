/**
 * Commits made at once (issue 29): on SQLite a small transaction can run synchronously
 * (Sql.txNow) when the connection is free, with no promise and no async context on its way.
 * The webhook intake's group commit writes its bursts so (writeManyNow → insertEventsNow), and
 * goes the async way (tx()) whenever the connection is held, or on PostgreSQL.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { DatabaseUnavailableError, NotifyStore, openDatabase, type AnyDb, type EventRow } from '../../src/store/index.js';
import { groupCommit } from '../../src/store/group-commit.js';
import { ENGINES, openTestDb } from '../support/databases.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function sqlite(): Promise<AnyDb> {
  const db = openDatabase(':memory:');
  cleanups.push(() => db.close());
  await db.exec('CREATE TABLE now_t (v INTEGER NOT NULL CHECK (v >= 0))');
  return db;
}

/** A transaction of another chain that holds the connection until `release`. */
function holding(db: AnyDb) {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let began!: () => void;
  const begun = new Promise<void>((r) => (began = r));
  const done = db.tx(async () => {
    began();
    await gate;
  });
  return { begun, release: async () => (release(), await done) };
}

describe('Sql.txNow on SQLite', () => {
  it('commits at once when the connection is free, and rolls back what a throw leaves', async () => {
    const db = await sqlite();
    expect(db.txNow!((q) => q.run('INSERT INTO now_t (v) VALUES (?), (?)', [1, 2]).changes)).toEqual({ value: 2 });
    expect(() =>
      db.txNow!((q) => {
        q.run('INSERT INTO now_t (v) VALUES (?)', [3]);
        q.run('INSERT INTO now_t (v) VALUES (?)', [-1]);
      }),
    ).toThrow(/check constraint/i);
    expect(await db.column<number>('SELECT v FROM now_t ORDER BY v')).toEqual([1, 2]);
    // RETURNING rows, as run() gives them.
    expect(db.txNow!((q) => q.run('INSERT INTO now_t (v) VALUES (?) RETURNING v', [4]).rows)).toEqual({ value: [{ v: 4 }] });
    expect(db.inTransaction).toBe(false);
  });

  it("answers undefined while another chain's transaction holds the connection, or inside one, and never joins it", async () => {
    const db = await sqlite();
    const held = holding(db);
    await held.begun;
    expect(db.txNow!((q) => q.run('INSERT INTO now_t (v) VALUES (?)', [7]))).toBeUndefined();
    await held.release();
    await db.tx(async () => {
      expect(db.txNow!((q) => q.run('INSERT INTO now_t (v) VALUES (?)', [8]))).toBeUndefined();
    });
    expect(await db.column<number>('SELECT v FROM now_t')).toEqual([]);
    expect(db.txNow!((q) => q.run('INSERT INTO now_t (v) VALUES (?)', [9]).changes)).toEqual({ value: 1 });
  });

  it('is a failure of the database, not of the statement, when the database is closed', async () => {
    const db = await sqlite();
    await db.close();
    expect(() => db.txNow!(() => 1)).toThrow(DatabaseUnavailableError);
  });
});

it('PostgreSQL has no txNow: its client answers only asynchronously', async () => {
  const db = await openTestDb('postgres');
  cleanups.push(() => db.close());
  expect('txNow' in db).toBe(false);
  expect(new NotifyStore(db).insertEventsNow([])).toBeUndefined();
});

describe('groupCommit with writeManyNow', () => {
  /** A group commit over now_t whose every way of writing is counted. */
  function counted(db: AnyDb) {
    const n = { transactions: 0, now: 0, many: 0, ones: 0 };
    const insertAll = (vs: readonly number[]) => `INSERT INTO now_t (v) VALUES ${vs.map(() => '(?)').join(', ')}`;
    const insert = groupCommit(
      (fn) => {
        if (!db.inTransaction) n.transactions++;
        return db.tx(fn);
      },
      async (v: number) => {
        n.ones++;
        await db.run(insertAll([v]), [v]);
        return `${v}:one`;
      },
      {
        writeMany: async (vs) => {
          n.many++;
          await db.run(insertAll(vs), vs);
          return vs.map((v) => `${v}:many`);
        },
        writeManyNow: (vs) => {
          n.now++;
          const done = db.txNow?.((q) => q.run(insertAll(vs), vs));
          return done && vs.map((v) => `${v}:now`);
        },
      },
    );
    return { n, insert };
  }

  it('writes a burst at once, in no async transaction, and answers each caller after its commit', async () => {
    const db = await sqlite();
    const { n, insert } = counted(db);
    const stored: number[][] = [];
    const answers = await Promise.all(
      [1, 2, 3].map((v) => insert(v).then(async (a) => (stored.push(await db.column<number>('SELECT v FROM now_t')), a))),
    );
    expect(answers).toEqual(['1:now', '2:now', '3:now']);
    expect(stored.every((s) => s.length === 3)).toBe(true);
    expect(n).toEqual({ transactions: 0, now: 1, many: 0, ones: 0 });
  });

  it('goes the async way while a transaction holds the connection, and commits once it is free', async () => {
    const db = await sqlite();
    const { n, insert } = counted(db);
    const held = holding(db);
    await held.begun;
    const answers = Promise.all([insert(4), insert(5)]);
    // The batch is flushed in the next turn; it tries at once, then waits in tx() for the connection.
    await new Promise((r) => setImmediate(r));
    expect(n).toEqual({ transactions: 1, now: 1, many: 0, ones: 0 });
    await held.release();
    expect(await answers).toEqual(['4:many', '5:many']);
    expect(await db.column<number>('SELECT v FROM now_t ORDER BY v')).toEqual([4, 5]);
  });

  it('when the burst at once fails, writes each item alone and refuses only the one that fails', async () => {
    const db = await sqlite();
    const { n, insert } = counted(db);
    const results = await Promise.allSettled([insert(1), insert(-1), insert(2)]);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : 'refused'))).toEqual(['1:one', 'refused', '2:one']);
    expect(String((results[1] as PromiseRejectedResult).reason)).toMatch(/check constraint/i);
    expect(n).toEqual({ transactions: 1, now: 1, many: 0, ones: 3 });
    expect(await db.column<number>('SELECT v FROM now_t ORDER BY v')).toEqual([1, 2]);
    // A batch of one: its error is its own, with no second pass.
    await expect(insert(-2)).rejects.toThrow(/check constraint/i);
    expect(n).toEqual({ transactions: 1, now: 2, many: 0, ones: 3 });
  });

  it('rejects the whole burst when the database itself fails', async () => {
    const db = await sqlite();
    const { n, insert } = counted(db);
    await db.close();
    const results = await Promise.allSettled([insert(1), insert(2)]);
    expect(results.every((r) => r.status === 'rejected' && r.reason instanceof DatabaseUnavailableError)).toBe(true);
    expect(n).toEqual({ transactions: 0, now: 1, many: 0, ones: 0 });
  });

  it('refuses writeManyNow beside `before`, which it would skip', () => {
    expect(() =>
      groupCommit(
        async (fn) => fn(),
        async () => 1,
        { before: async () => 1, writeManyNow: () => [] },
      ),
    ).toThrow(/before/);
  });
});

describe.each(ENGINES)('the webhook burst at once on %s', (engine) => {
  const event = (key: string, over: Partial<EventRow> = {}): Omit<EventRow, 'id'> => ({
    dedupe_key: key,
    node_id: 'n1',
    node_name: 'alice',
    event_type: 'NODE_STATUS_UPDATED',
    status: 'RUNNING',
    event_ts: '2026-04-16T12:00:00.000Z',
    received_at: 1_776_340_800_000,
    payload: '{"a":1}',
    event_ms: 1_776_340_800_000,
    route_pending: 1,
    ...over,
  });

  it('insertEventsNow answers and stores as insertEvents does (SQLite), or answers undefined (PostgreSQL)', async () => {
    const twin = async () => {
      const db = await openTestDb(engine);
      cleanups.push(() => db.close());
      const store = new NotifyStore(db);
      await store.insertEvent(event('old'));
      await store.insertEvent(event('bare', { event_ms: null }));
      return { db, store };
    };
    // Stored before, by its time or as given; twice in the burst, in one statement or in two.
    const burst = Array.from({ length: 19 }, (_, i) => event(`e-${i}`, { event_ms: 1_776_340_800_000 + i }));
    burst[2] = event('old');
    burst[5] = event('bare', { event_ms: null });
    burst[17] = event('e-1', { event_ms: 1_776_340_800_001, node_name: 'again' });
    burst[18] = event('e-3', { event_ms: 1_776_340_800_003 });
    const a = await twin();
    const b = await twin();
    const viaTx = await a.store.tx(() => a.store.insertEvents(burst));
    const now = b.store.insertEventsNow(burst);
    if (engine === 'postgres') return expect(now).toBeUndefined();
    expect(now).toEqual(viaTx);
    expect(now!.filter((id) => id === undefined)).toHaveLength(4);
    const rows = (db: AnyDb) => db.all('SELECT * FROM notify_events ORDER BY id');
    expect(await rows(b.db)).toEqual(await rows(a.db));
  });
});
