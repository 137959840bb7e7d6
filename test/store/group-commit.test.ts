import { describe, it, expect } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openDatabase } from '../../src/store/index.js';
import { groupCommit } from '../../src/store/group-commit.js';

describe('groupCommit', () => {
  it('writes a burst in one transaction, settles each caller after the commit, and isolates a failing item', async () => {
    const db = openDatabase(':memory:', []);
    void db.exec('CREATE TABLE t (v INTEGER NOT NULL CHECK (v >= 0))');
    let transactions = 0;
    const tx = <X>(fn: () => X): X => {
      if (!db.inTransaction) transactions++;
      return db.transaction(fn)();
    };
    const insert = groupCommit(tx, (v: number) => {
      db.prepare('INSERT INTO t (v) VALUES (?)').run(v);
      // Visible to the caller only after the outer commit: while we are here it is not committed yet.
      return db.inTransaction;
    });
    const results = await Promise.allSettled([insert(1), insert(2), insert(-1), insert(3)]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect((results[0] as PromiseFulfilledResult<boolean>).value).toBe(true);
    expect(String((results[2] as PromiseRejectedResult).reason)).toMatch(/CHECK constraint/);
    expect(transactions).toBe(1);
    expect(db.prepare('SELECT v FROM t ORDER BY v').pluck().all()).toEqual([1, 2, 3]);
    expect(db.inTransaction).toBe(false);
    // A later burst is a new transaction.
    await insert(4);
    expect(transactions).toBe(2);
  });

  it('rejects the whole batch at once when the database is locked, instead of waiting out the lock item by item', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'group-commit-'));
    const path = join(dir, 'db.sqlite');
    const db = openDatabase(path, []);
    const other = new Database(path);
    try {
      void db.exec('CREATE TABLE t (v INTEGER NOT NULL)');
      db.pragma('busy_timeout = 20');
      let tries = 0;
      const insert = groupCommit(
        <X>(fn: () => X): X => db.transaction(fn)(),
        (v: number) => {
          tries++;
          db.prepare('INSERT INTO t (v) VALUES (?)').run(v);
        },
      );
      other.exec('BEGIN IMMEDIATE'); // someone else holds the write lock
      const results = await Promise.allSettled([1, 2, 3, 4, 5].map((v) => insert(v)));
      other.exec('ROLLBACK');
      expect(results.every((r) => r.status === 'rejected' && /SQLITE_BUSY/.test(String((r.reason as { code?: string }).code)))).toBe(true);
      // One item met the lock; the others were not tried (each would have waited busy_timeout).
      expect(tries).toBe(1);
      expect(db.inTransaction).toBe(false);
      expect(db.prepare('SELECT count(*) FROM t').pluck().get()).toBe(0);
      // Once the lock is gone, a redelivery is written.
      await Promise.all([insert(6), insert(7)]);
      expect(db.prepare('SELECT v FROM t ORDER BY v').pluck().all()).toEqual([6, 7]);
    } finally {
      other.close();
      void db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
