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

  /** A store whose database holds two events already: one stored by its time, one without a time (its key as given). */
  const twin = async (legacy?: { event_ms: number | null; payload: string }) => {
    const db = await openTestDb(engine);
    cleanups.push(() => db.close());
    const store = new NotifyStore(db);
    await store.insertEvent(event('old'));
    await store.insertEvent(event('bare', { event_ms: null }));
    // As an older version stored an event with a time: its key as given (SQLite's own statement, no prefix).
    if (legacy)
      await db.run(
        `INSERT INTO notify_events (dedupe_key, node_id, event_type, received_at, payload, event_ms) VALUES ('legacy', 'n1', 'NODE_STATUS_UPDATED', 1, ?, ?)`,
        [legacy.payload, legacy.event_ms],
      );
    return { db, store };
  };
  // Stored before, by its time or as given; twice in the burst, in one statement or in two.
  const burst = Array.from({ length: 19 }, (_, i) => event(`e-${i}`, { event_ms: 1_776_340_800_000 + i }));
  burst[2] = event('old');
  burst[5] = event('bare', { event_ms: null });
  burst[17] = event('e-1', { event_ms: 1_776_340_800_001, node_name: 'again' });
  burst[18] = event('e-3', { event_ms: 1_776_340_800_003 });
  burst[9] = event('legacy');
  /** The rows as stored, each with the index in `burst` of the event its id answered (ids are not promised alike). */
  const stored = async (db: AnyDb, ids: Array<number | undefined>) =>
    (await db.all<EventRow>('SELECT * FROM notify_events ORDER BY id')).map(({ id, ...row }) => ({ ...row, answered: ids.indexOf(id) }));

  it.each([
    ['no event key stored as given by an older version', undefined],
    ['an older version stored a key as given (its event_ms known)', { event_ms: 1_776_340_800_000, payload: '{}' }],
    [
      'an older version stored a key as given (before event_ms: the time in its payload)',
      { event_ms: null, payload: '{"eventTimestamp":"2026-04-16T12:00:00.000Z"}' },
    ],
    [
      "an older version stored a key as given (before event_ms: the body's time as `timestamp`)",
      { event_ms: null, payload: '{"timestamp":"2026-04-16T12:00:00.000Z"}' },
    ],
  ])('insertEventsNow answers and stores as insertEvents does (SQLite), or answers undefined (PostgreSQL): %s', async (_, legacy) => {
    const a = await twin(legacy);
    const b = await twin(legacy);
    const viaTx = await a.store.tx(() => a.store.insertEvents(burst));
    const now = b.store.insertEventsNow(burst);
    if (engine === 'postgres') return expect(now).toBeUndefined();
    expect(now!.map((id) => id === undefined)).toEqual(viaTx.map((id) => id === undefined));
    // Duplicates: stored before (2, or 3 with the older version's key), and twice in the burst (2).
    expect(now!.filter((id) => id === undefined)).toHaveLength(legacy ? 5 : 4);
    // Each event its own id, in the order given.
    const fresh = now!.filter((id): id is number => id !== undefined);
    expect(fresh).toEqual([...new Set(fresh)].sort((x, y) => x - y));
    expect(await stored(b.db, now!)).toEqual(await stored(a.db, viaTx));
  });

  // SQLite's alone: PostgreSQL has no txNow.
  if (engine === 'sqlite')
    it('writes the burst at once one prepared row at a time, once no key can be stored as given; else with the look for it', async () => {
      const written = async (legacy?: { event_ms: number | null; payload: string }, prepared = false) => {
        const { db, store } = await twin(legacy);
        if (prepared) await store.prepareWrites();
        const sqlite = db as AnyDb & { txNow: NonNullable<AnyDb['txNow']> };
        const counts = { run: 0, insert: 0 };
        const txNow = sqlite.txNow.bind(sqlite);
        sqlite.txNow = (fn) =>
          txNow((q) =>
            fn({
              run: (sql, params) => (counts.run++, q.run(sql, params)),
              insert: (sql, params) => (counts.insert++, q.insert(sql, params)),
            }),
          );
        store.insertEventsNow(burst);
        store.insertEventsNow(burst.slice(0, 3));
        return counts;
      };
      // The question once (one run), then a row per event, 19 then 3: the unique index refuses a key twice in the burst.
      expect(await written()).toEqual({ run: 1, insert: 22 });
      // Asked before (the notifier's start): no question in the webhook's transaction.
      expect(await written(undefined, true)).toEqual({ run: 0, insert: 22 });
      expect(await written({ event_ms: 1_776_340_800_000, payload: '{}' }, true)).toEqual({ run: 4, insert: 0 });
      // A body that is not JSON (no version stores one) is no time: asked without failing, and none found.
      expect(await written({ event_ms: null, payload: 'not json' })).toEqual({ run: 1, insert: 22 });
      // The older version's key is looked for: the multi-row statements (16 + 1 rows, then 2 + 1).
      expect(await written({ event_ms: 1_776_340_800_000, payload: '{}' })).toEqual({ run: 5, insert: 0 });
    });
});
