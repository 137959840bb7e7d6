import { describe, it, expect } from 'vitest';
import { openDatabase } from '../../src/store/index.js';
import { groupCommit } from '../../src/store/group-commit.js';

describe('groupCommit', () => {
  it('writes a burst in one transaction, settles each caller after the commit, and isolates a failing item', async () => {
    const db = openDatabase(':memory:', []);
    db.exec('CREATE TABLE t (v INTEGER NOT NULL CHECK (v >= 0))');
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
});
