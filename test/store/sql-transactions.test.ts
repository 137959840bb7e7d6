/**
 * Transactions at their edges, on both engines: a failed statement caught inside, work that
 * outlives its transaction, concurrent nested transactions; and PostgreSQL's error classes,
 * URL description and health ping.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DatabaseUnavailableError, openPostgres, type AnyDb } from '../../src/store/index.js';
import { PostgresSql, describeUrl } from '../../src/store/sql/postgres.js';
import { ENGINES, newPostgresUrl, openTestDb } from '../support/databases.js';

describe.each(ENGINES)('transactions on %s', (engine) => {
  let db: AnyDb;
  beforeAll(async () => {
    db = await openTestDb(engine);
    await db.exec('CREATE TABLE tx_edge (k TEXT PRIMARY KEY, v INTEGER)');
  });
  afterAll(async () => {
    await db.close();
  });

  it('never reports a commit when a caught statement error left nothing stored', async () => {
    await db.exec('DELETE FROM tx_edge');
    const outcome = await db
      .tx(async () => {
        await db.run('INSERT INTO tx_edge (k, v) VALUES (?, ?)', ['a', 1]);
        await db.run('INSERT INTO tx_edge (k, v) VALUES (?, ?)', ['a', 2]).catch(() => undefined);
        return 'committed';
      })
      .catch((e: Error) => e);
    const stored = await db.column<string>('SELECT k FROM tx_edge');
    // SQLite carries on after a failed statement; PostgreSQL aborts the transaction, and tx() must say so.
    if (engine === 'sqlite') {
      expect(outcome).toBe('committed');
      expect(stored).toEqual(['a']);
    } else {
      expect(outcome).toBeInstanceOf(Error);
      expect((outcome as Error).message).toMatch(/aborted by an earlier failed statement/);
      expect(stored).toEqual([]);
    }
  });

  it('keeps the transaction when a failing statement is nested in its own tx()', async () => {
    await db.exec('DELETE FROM tx_edge');
    await db.tx(async () => {
      await db.run('INSERT INTO tx_edge (k, v) VALUES (?, ?)', ['a', 1]);
      await db.tx(() => db.run('INSERT INTO tx_edge (k, v) VALUES (?, ?)', ['a', 2])).catch(() => undefined);
      await db.run('INSERT INTO tx_edge (k, v) VALUES (?, ?)', ['b', 3]);
      // The savepoint is released after its rollback: a new one of the same depth works.
      await db.tx(() => db.run('INSERT INTO tx_edge (k, v) VALUES (?, ?)', ['c', 4]));
    });
    expect(await db.column<string>('SELECT k FROM tx_edge ORDER BY k')).toEqual(['a', 'b', 'c']);
  });
  it("keeps work that outlives its transaction out of the next one (another chain's)", async () => {
    await db.exec('DELETE FROM tx_edge');
    let go!: () => void;
    const gate = new Promise<void>((r) => (go = r));
    let leftover!: Promise<boolean>;
    await db.tx(async () => {
      // Started inside, runs after the transaction ended: it is in no transaction any more.
      leftover = gate.then(async () => {
        await db.run('INSERT INTO tx_edge (k, v) VALUES (?, ?)', ['late', 1]);
        return db.inTransaction;
      });
    });
    expect(db.inTransaction).toBe(false);
    await db
      .tx(async () => {
        await db.run('INSERT INTO tx_edge (k, v) VALUES (?, ?)', ['other', 2]);
        go();
        await new Promise((r) => setTimeout(r, 50));
        throw new Error('roll this one back');
      })
      .catch(() => undefined);
    expect(await leftover).toBe(false);
    // The late insert was not part of the transaction rolled back.
    expect(await db.column<string>('SELECT k FROM tx_edge')).toEqual(['late']);
  });
  it('runs concurrent nested transactions one after the other, each with its own savepoint', async () => {
    await db.exec('DELETE FROM tx_edge');
    const order: string[] = [];
    await db.tx(async () => {
      const results = await Promise.allSettled([
        db.tx(async () => {
          order.push('a begins');
          await db.run('INSERT INTO tx_edge (k, v) VALUES (?, ?)', ['a', 1]);
          await new Promise((r) => setTimeout(r, 20));
          await db.tx(() => db.run('INSERT INTO tx_edge (k, v) VALUES (?, ?)', ['a2', 1]));
          order.push('a ends');
          throw new Error('a fails');
        }),
        db.tx(async () => {
          order.push('b begins');
          await db.run('INSERT INTO tx_edge (k, v) VALUES (?, ?)', ['b', 2]);
          order.push('b ends');
        }),
      ]);
      expect(results.map((r) => r.status)).toEqual(['rejected', 'fulfilled']);
    });
    expect(order).toEqual(['a begins', 'a ends', 'b begins', 'b ends']);
    // a's savepoint rolled back a and a2 only; b's insert stayed.
    expect(await db.column<string>('SELECT k FROM tx_edge ORDER BY k')).toEqual(['b']);
  });
});

describe('PostgreSQL errors', () => {
  let db: AnyDb;
  beforeAll(async () => {
    db = await openTestDb('postgres');
  });
  afterAll(async () => {
    await db.close();
  });

  it('tells a bad parameter or statement from a database that is unavailable', async () => {
    // Node itself refuses something while the parameter is prepared (ERR_INVALID_ARG_TYPE).
    const param = { toPostgres: () => Buffer.from(undefined as unknown as string) };
    const bad = await db.value('SELECT ?::text', [param]).catch((err: unknown) => err);
    expect(bad).toMatchObject({ code: 'ERR_INVALID_ARG_TYPE' });
    expect(bad).not.toBeInstanceOf(DatabaseUnavailableError);
    const syntax = await db.value('SELEC 1').catch((err: unknown) => err);
    expect(syntax).not.toBeInstanceOf(DatabaseUnavailableError);
    expect(await db.value('SELECT 1')).toBe(1);
  });

  it('still calls a closed pool or a refused connection unavailable', async () => {
    const closed = await openTestDb('postgres');
    await closed.close();
    await expect(closed.value('SELECT 1')).rejects.toBeInstanceOf(DatabaseUnavailableError);
    const refused = new PostgresSql({ url: 'postgres://u:p@127.0.0.1:1/x', onError: () => undefined });
    await expect(refused.value('SELECT 1')).rejects.toMatchObject({ name: 'DatabaseUnavailableError', code: 'ECONNREFUSED' });
    await refused.close();
  });
});

describe('describeUrl', () => {
  it('never shows a password, in the user part or in the query string', () => {
    expect(describeUrl('postgres://bot:pw1234@db:5432/rln')).toBe('postgres://bot@db:5432/rln');
    const withQuery = describeUrl('postgres://bot@db:5432/rln?password=hunter22&sslpassword=kp&sslkey=/k.pem&sslmode=require');
    expect(withQuery).toBe('postgres://bot@db:5432/rln');
    expect(new PostgresSql({ url: 'postgres://bot@127.0.0.1:1/rln?password=hunter22' }).where).not.toContain('hunter22');
  });
});

describe('PostgreSQL ping under load', () => {
  it('answers at once while every pool connection is busy', async () => {
    const db = await openPostgres(await newPostgresUrl(), { max: 2 });
    let finish!: () => void;
    const gate = new Promise<void>((r) => (finish = r));
    const entered: Array<() => void> = [];
    const inside = Array.from({ length: 2 }, () => new Promise<void>((r) => entered.push(r)));
    // Both connections held in open transactions.
    const held = Array.from({ length: 2 }, (_, i) =>
      db.tx(async () => {
        await db.value('SELECT 1');
        entered[i]();
        await gate;
      }),
    );
    try {
      await Promise.all(inside);
      const started = Date.now();
      expect(await db.ping()).toBe(true);
      expect(Date.now() - started).toBeLessThan(1000);
    } finally {
      finish();
      await Promise.all(held);
      await db.close();
    }
    expect(await db.ping()).toBe(false);
  });
});
