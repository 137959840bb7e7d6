/**
 * The store's two engines behind one interface: the same SQL, the same answers, and
 * transactions that follow the async call chain (commit, roll back, savepoints), on SQLite and
 * on a real PostgreSQL server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActivityStateRepo, createGenerations, createLeases, schemaStatus, type AnyDb } from '../../src/store/index.js';
import { ENGINES, openTestDb } from '../support/databases.js';

describe.each(ENGINES)('store on %s', (engine) => {
  let db: AnyDb;
  beforeAll(async () => {
    db = await openTestDb(engine);
  });
  afterAll(async () => {
    await db.close();
  });

  it('is migrated to the schema version this build expects', async () => {
    const s = await schemaStatus(db);
    expect(s.engine).toBe(engine);
    expect(s.missing).toEqual([]);
    expect(s.applied).toBe(s.expected);
    expect(s.where).not.toMatch(/:pw/);
  });

  it('answers ? and @name parameters, RETURNING, and numbers as numbers', async () => {
    const r = await db.run('INSERT INTO store_leases (name, owner, until) VALUES (@name, @owner, @until) RETURNING until', {
      name: 'a',
      owner: 'me',
      until: 1_800_000_000_000,
    });
    expect(r.changes).toBe(1);
    expect(r.rows[0].until).toBe(1_800_000_000_000);
    expect(await db.value<number>('SELECT COUNT(*) FROM store_leases WHERE owner = ?', ['me'])).toBe(1);
    expect(await db.get<{ ownerName: string }>('SELECT owner AS "ownerName" FROM store_leases WHERE name = ?', ['a'])).toEqual({
      ownerName: 'me',
    });
    expect(await db.column<string>('SELECT name FROM store_leases ORDER BY name')).toEqual(['a']);
    expect(await db.value('SELECT owner FROM store_leases WHERE name = ?', ['nope'])).toBeUndefined();
  });

  it('gives rows as arrays of their columns in the order the query names them; the same text still gives objects', async () => {
    await db.run('INSERT INTO store_leases (name, owner, until) VALUES (?, ?, ?), (?, ?, ?)', ['arr-1', 'x', 1, 'arr-2', 'y', 2]);
    const sql = 'SELECT until, name, NULL AS empty FROM store_leases WHERE name LIKE ? ORDER BY name';
    expect(await db.arrays(sql, ['arr-%'])).toEqual([
      [1, 'arr-1', null],
      [2, 'arr-2', null],
    ]);
    // SQLite prepares a text once: the arrays were for that call only.
    expect(await db.all(sql, ['arr-%'])).toEqual([
      { until: 1, name: 'arr-1', empty: null },
      { until: 2, name: 'arr-2', empty: null },
    ]);
    expect(await db.arrays(sql, ['none'])).toEqual([]);
    // A read that fails as it runs (a value the engine cannot bind or compare) leaves the text giving objects.
    const byUntil = 'SELECT name FROM store_leases WHERE until = ?';
    await expect(db.arrays(byUntil, [engine === 'sqlite' ? { not: 'a value' } : 'not a number'])).rejects.toThrow();
    expect(await db.all(byUntil, [2])).toEqual([{ name: 'arr-2' }]);
  });

  it('binds a @name used twice to both places, leaves an @ in a string alone, and refuses a missing name', async () => {
    const r = await db.run(
      `INSERT INTO store_leases (name, owner, until) VALUES (@name, @name || '@owner', @until) RETURNING owner, until`,
      { name: 'twice', until: 7, unused: 'x' },
    );
    expect(r.rows[0]).toEqual({ owner: 'twice@owner', until: 7 });
    expect(
      await db.value('SELECT until FROM store_leases WHERE name = @name AND owner = @owner', { name: 'twice', owner: 'twice@owner' }),
    ).toBe(7);
    await expect(db.run('UPDATE store_leases SET until = @until WHERE name = @name', { name: 'twice' })).rejects.toThrow(/until/);
    expect(await db.value('SELECT until FROM store_leases WHERE name = ?', ['twice'])).toBe(7);
  });

  it('commits a transaction, rolls back one that throws, and rolls back only a failed savepoint', async () => {
    await db.tx(async () => {
      await db.run("INSERT INTO store_generations (name, gen) VALUES ('t1', 1)");
    });
    await expect(
      db.tx(async () => {
        await db.run("INSERT INTO store_generations (name, gen) VALUES ('t2', 1)");
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    await db.tx(async () => {
      await db.run("INSERT INTO store_generations (name, gen) VALUES ('t3', 1)");
      await db
        .tx(async () => {
          await db.run("INSERT INTO store_generations (name, gen) VALUES ('t4', 1)");
          throw new Error('inner');
        })
        .catch(() => undefined);
      expect(db.inTransaction).toBe(true);
    });
    expect(db.inTransaction).toBe(false);
    expect(await db.column<string>("SELECT name FROM store_generations WHERE name LIKE 't%' ORDER BY name")).toEqual(['t1', 't3']);
  });

  it('keeps a query from outside out of a transaction in progress', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const inTx = db.tx(async () => {
      await db.run("INSERT INTO store_generations (name, gen) VALUES ('x1', 1)");
      await gate;
      throw new Error('rolled back');
    });
    // Written from elsewhere while the transaction is open: it must survive the rollback.
    const outside = db.run("INSERT INTO store_generations (name, gen) VALUES ('x2', 1)");
    release();
    await expect(inTx).rejects.toThrow('rolled back');
    await outside;
    expect(await db.column<string>("SELECT name FROM store_generations WHERE name LIKE 'x%' ORDER BY name")).toEqual(['x2']);
  });

  it('gives a lease to one owner at a time until it ends', async () => {
    const leases = createLeases(db);
    expect(await leases.claim('job', 'a', 1000, 0)).toBe(true);
    expect(await leases.claim('job', 'b', 1500, 500)).toBe(false);
    expect(await leases.claim('job', 'a', 2000, 900)).toBe(true); // renewed by its holder
    expect(await leases.holder('job', 1900)).toBe('a');
    expect(await leases.claim('job', 'b', 3000, 2000)).toBe(true); // ended: taken over
    expect(await leases.holder('job', 2500)).toBe('b');
    await leases.release('job', 'a'); // not the holder: nothing
    expect(await leases.holder('job', 2500)).toBe('b');
    await leases.release('job', 'b');
    expect(await leases.holder('job', 2500)).toBeUndefined();
  });

  it('lets exactly one of many concurrent claims win', async () => {
    const leases = createLeases(db);
    const wins = await Promise.all(Array.from({ length: 20 }, (_, i) => leases.claim('race', `r${i}`, 10_000, 0)));
    expect(wins.filter(Boolean)).toHaveLength(1);
  });

  it('counts changes', async () => {
    const g = createGenerations(db);
    expect(await g.current('w')).toBe(0);
    await g.bump('w');
    await g.bump('w');
    expect(await g.current('w')).toBe(2);
  });

  it('keeps the activity states (a repository on both engines)', async () => {
    const repo = createActivityStateRepo(db);
    await repo.put('n1', { a: 1 }, 5);
    await repo.put('n1', { a: 2 }, 6);
    await repo.put('n2', { b: 1 }, 6);
    expect(await repo.get('n1')).toEqual({ a: 2 });
    expect(await repo.removeExcept(['n1'])).toBe(1);
    expect(await repo.get('n2')).toBeUndefined();
  });
});

describe('SQLite connection settings', () => {
  it('keeps temporary storage (the statement journal of a multi-row write) in memory, not in a temporary file', async () => {
    const db = await openTestDb('sqlite');
    // 2 = MEMORY (0, the default, is the build's choice: a file).
    expect(await db.value('PRAGMA temp_store')).toBe(2);
    // A multi-row statement inside a transaction that fails half-way still undoes its own rows.
    await db.exec('CREATE TABLE ts_t (v INTEGER NOT NULL CHECK (v >= 0))');
    await db.tx(async () => {
      await db.run('INSERT INTO ts_t (v) VALUES (1)');
      await expect(db.tx(() => db.run('INSERT INTO ts_t (v) VALUES (2), (3), (-1)'))).rejects.toThrow(/check constraint/i);
      await expect(db.run('INSERT INTO ts_t (v) VALUES (4), (-5), (6)')).rejects.toThrow(/check constraint/i);
    });
    expect(await db.column('SELECT v FROM ts_t ORDER BY v')).toEqual([1]);
    await db.close();
  });
});
