/**
 * Group commit on both engines: a burst is one transaction with no savepoint per item; when an
 * item fails, the batch is written again with one savepoint per item (the failing one rolls
 * back alone); a failure of the database itself rejects the batch. With writeMany, the first
 * pass writes the burst in one call.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { DatabaseUnavailableError, openDatabase, openPostgres, type AnyDb } from '../../src/store/index.js';
import { groupCommit } from '../../src/store/group-commit.js';
import { ENGINES, newPostgresUrl, openTestDb } from '../support/databases.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** db.tx, counting the transactions it begins and the savepoints it nests. */
function countingTx(db: AnyDb): { tx: <X>(fn: () => Promise<X>) => Promise<X>; transactions: number; savepoints: number } {
  const counted = {
    transactions: 0,
    savepoints: 0,
    tx: <X>(fn: () => Promise<X>): Promise<X> => {
      if (!db.inTransaction) counted.transactions++;
      else counted.savepoints++;
      return db.tx(fn);
    },
  };
  return counted;
}

describe.each(ENGINES)('groupCommit on %s', (engine) => {
  it('writes a burst in one transaction, settles each caller after the commit, and rolls back a failing item alone', async () => {
    const db = await openTestDb(engine);
    cleanups.push(() => db.close());
    await db.exec('CREATE TABLE gc_t (v INTEGER NOT NULL CHECK (v >= 0))');
    const counted = countingTx(db);
    const tx = counted.tx;
    let batches = 0;
    const insert = groupCommit(
      tx,
      async (v: number, batch: number) => {
        await db.run('INSERT INTO gc_t (v) VALUES (?)', [v]);
        // A second write of the same item: the savepoint takes both back when the item fails.
        await db.run('INSERT INTO gc_t (v) VALUES (?)', [v + 100]);
        return { inTransaction: db.inTransaction, batch };
      },
      async () => ++batches,
    );
    // A clean burst: one transaction, one `before`, no savepoint.
    expect(await Promise.all([insert(5), insert(6)])).toEqual([
      { inTransaction: true, batch: 1 },
      { inTransaction: true, batch: 1 },
    ]);
    expect([counted.transactions, batches, counted.savepoints]).toEqual([1, 1, 0]);
    // A burst with a failing item: the first pass is rolled back whole, the second writes each
    // item in its own savepoint (with its own `before`), and the failing one alone is rejected.
    const results = await Promise.allSettled([insert(1), insert(2), insert(-1), insert(3)]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect((results[0] as PromiseFulfilledResult<{ inTransaction: boolean; batch: number }>).value).toEqual({
      inTransaction: true,
      batch: 3,
    });
    expect(String((results[2] as PromiseRejectedResult).reason)).toMatch(/check constraint/i);
    expect([counted.transactions, batches, counted.savepoints]).toEqual([3, 3, 4]);
    expect(await db.column<number>('SELECT v FROM gc_t ORDER BY v')).toEqual([1, 2, 3, 5, 6, 101, 102, 103, 105, 106]);
    expect(db.inTransaction).toBe(false);
    // A later burst is a new transaction, with its own `before`; a failing item alone is not written twice.
    expect(await insert(4)).toEqual({ inTransaction: true, batch: 4 });
    await expect(insert(-2)).rejects.toThrow(/check constraint/i);
    expect([counted.transactions, batches, counted.savepoints]).toEqual([5, 5, 4]);
  });

  it('with writeMany, writes a clean burst in one call (one statement), and when it fails, each item alone with writeOne in its savepoint', async () => {
    const db = await openTestDb(engine);
    cleanups.push(() => db.close());
    await db.exec('CREATE TABLE gc_m (v INTEGER NOT NULL CHECK (v >= 0))');
    const counted = countingTx(db);
    const tx = counted.tx;
    let batches = 0;
    let many = 0;
    let ones = 0;
    let unavailable = false;
    const insert = groupCommit(
      tx,
      async (v: number, batch: number) => {
        ones++;
        await db.run('INSERT INTO gc_m (v) VALUES (?)', [v]);
        return `${v}@${batch}`;
      },
      {
        before: async () => ++batches,
        writeMany: async (vs, batch) => {
          many++;
          if (unavailable) throw new DatabaseUnavailableError('gone');
          await db.run(`INSERT INTO gc_m (v) VALUES ${vs.map(() => '(?)').join(', ')}`, vs);
          return vs.map((v) => `${v}@${batch}`);
        },
      },
    );
    // A clean burst: one transaction, one `before`, one writeMany (one statement), no writeOne, no savepoint.
    expect(await Promise.all([insert(5), insert(6), insert(7)])).toEqual(['5@1', '6@1', '7@1']);
    expect({ transactions: counted.transactions, batches, many, ones, savepoints: counted.savepoints }).toEqual({
      transactions: 1,
      batches: 1,
      many: 1,
      ones: 0,
      savepoints: 0,
    });
    // One item the table refuses: writeMany's pass is rolled back whole; the second pass writes
    // each item with writeOne in its own savepoint, and only the failing one is rejected.
    const results = await Promise.allSettled([insert(1), insert(-1), insert(2)]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(results[0]).toEqual({ status: 'fulfilled', value: '1@3' });
    expect(String((results[1] as PromiseRejectedResult).reason)).toMatch(/check constraint/i);
    expect({ transactions: counted.transactions, batches, many, ones, savepoints: counted.savepoints }).toEqual({
      transactions: 3,
      batches: 3,
      many: 2,
      ones: 3,
      savepoints: 3,
    });
    expect(await db.column<number>('SELECT v FROM gc_m ORDER BY v')).toEqual([1, 2, 5, 6, 7]);
    // A batch of one is written by writeMany too, and its error is its own: no second pass.
    await expect(insert(-3)).rejects.toThrow(/check constraint/i);
    expect({ transactions: counted.transactions, many, ones }).toEqual({ transactions: 4, many: 3, ones: 3 });
    // A failure of the database itself rejects the whole batch, with no second pass.
    unavailable = true;
    const lost = await Promise.allSettled([insert(8), insert(9)]);
    expect(lost.every((r) => r.status === 'rejected' && r.reason instanceof DatabaseUnavailableError)).toBe(true);
    expect({ transactions: counted.transactions, many, ones }).toEqual({ transactions: 5, many: 4, ones: 3 });
    unavailable = false;
    expect(await Promise.all([insert(8), insert(9)])).toEqual(['8@6', '9@6']);
    expect(await db.column<number>('SELECT v FROM gc_m ORDER BY v')).toEqual([1, 2, 5, 6, 7, 8, 9]);
    expect(db.inTransaction).toBe(false);
  });

  it('runs the items of a batch one after another, never two savepoints at once', async () => {
    const db = await openTestDb(engine);
    cleanups.push(() => db.close());
    let running = 0;
    let most = 0;
    const insert = groupCommit(
      (fn) => db.tx(fn),
      async (v: number) => {
        most = Math.max(most, ++running);
        await db.run('INSERT INTO store_generations (name, gen) VALUES (?, ?)', [`gc${v}`, v]);
        await new Promise((r) => setTimeout(r, 2));
        running--;
        return v;
      },
    );
    expect(await Promise.all([1, 2, 3, 4, 5].map((v) => insert(v)))).toEqual([1, 2, 3, 4, 5]);
    expect(most).toBe(1);
  });

  it('rejects the whole batch when the database itself fails, and writes the next one', async () => {
    let db: AnyDb;
    /** Makes the database fail for the batch: a lock held elsewhere (SQLite), a killed connection (PostgreSQL). */
    let breakIt: () => Promise<void>;
    let mend: () => void = () => undefined;
    if (engine === 'sqlite') {
      const dir = mkdtempSync(join(tmpdir(), 'group-commit-'));
      const path = join(dir, 'db.sqlite');
      const sqlite = openDatabase(path);
      db = sqlite;
      await sqlite.exec('PRAGMA busy_timeout = 20');
      const other = new Database(path);
      cleanups.push(
        () => rmSync(dir, { recursive: true, force: true }),
        () => db.close(),
        () => void other.close(),
      );
      breakIt = async () => void other.exec('BEGIN IMMEDIATE'); // someone else holds the write lock
      mend = () => other.exec('ROLLBACK');
    } else {
      const url = await newPostgresUrl();
      db = await openPostgres(url, { max: 2 });
      const admin = await openPostgres(url, { max: 1 });
      cleanups.push(
        () => db.close(),
        () => admin.close(),
      );
      breakIt = async () => {
        // The batch's own connection is ended from outside (a restart, a failover).
        const pid = await db.value<number>('SELECT pg_backend_pid()');
        await admin.value('SELECT pg_terminate_backend(?)', [pid]);
      };
    }
    await db.exec('CREATE TABLE gc_t (v INTEGER NOT NULL)');
    let tries = 0;
    let broken = false;
    const insert = groupCommit(
      (fn) => db.tx(fn),
      async (v: number) => {
        tries++;
        if (!broken && engine === 'postgres') {
          broken = true;
          await breakIt();
        }
        await db.run('INSERT INTO gc_t (v) VALUES (?)', [v]);
      },
    );
    if (engine === 'sqlite') await breakIt();
    const results = await Promise.allSettled([1, 2, 3, 4, 5].map((v) => insert(v)));
    mend();
    expect(results.every((r) => r.status === 'rejected' && r.reason instanceof DatabaseUnavailableError)).toBe(true);
    // No item after the failure was tried (SQLite does not even begin: the lock is met at BEGIN).
    expect(tries).toBe(engine === 'sqlite' ? 0 : 1);
    expect(db.inTransaction).toBe(false);
    expect(await db.value<number>('SELECT COUNT(*) FROM gc_t')).toBe(0);
    // Once the database answers again, a redelivery is written.
    await Promise.all([insert(6), insert(7)]);
    expect(await db.column<number>('SELECT v FROM gc_t ORDER BY v')).toEqual([6, 7]);
  });

  it('add() joins the same batch as the promise form and answers by callbacks after the commit; a callback that throws leaves the others answered', async () => {
    const db = await openTestDb(engine);
    cleanups.push(() => db.close());
    await db.exec('CREATE TABLE gc_a (v INTEGER NOT NULL CHECK (v >= 0))');
    const counted = countingTx(db);
    const insert = groupCommit(counted.tx, async (v: number) => {
      await db.run('INSERT INTO gc_a (v) VALUES (?)', [v]);
      return v * 10;
    });
    const answers: string[] = [];
    // Called back once the batch has committed: the row is there to read, outside any transaction.
    const seen = (tag: string) => (v: number) => answers.push(`${tag}:${v}:${db.inTransaction}`);
    const thrown: unknown[] = [];
    const onUncaught = (e: unknown) => thrown.push(e);
    process.prependListener('uncaughtException', onUncaught);
    try {
      const rejected = new Promise<unknown>((resolve) => insert.add(-1, () => answers.push('wrong'), resolve));
      insert.add(1, seen('a'), (e) => answers.push(`a failed: ${String(e)}`));
      insert.add(
        2,
        () => {
          throw new Error('a callback failed');
        },
        () => answers.push('b failed'),
      );
      const promised = insert(3);
      insert.add(4, seen('c'), (e) => answers.push(`c failed: ${String(e)}`));
      expect(await promised).toBe(30);
      expect(String(await rejected)).toMatch(/check constraint/i);
      await new Promise((r) => setImmediate(r));
      expect(answers).toEqual(['a:10:false', 'c:40:false']);
      expect(String(thrown[0])).toMatch(/a callback failed/);
    } finally {
      process.off('uncaughtException', onUncaught);
    }
    // One batch: the first pass, then each item in its savepoint (the failing one rolled back alone).
    expect(counted.transactions).toBe(2);
    expect(await db.column<number>('SELECT v FROM gc_a ORDER BY v')).toEqual([1, 2, 3, 4]);
  });
});
