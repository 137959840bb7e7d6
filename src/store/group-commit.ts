/**
 * Group commit: items that arrive in the same turn of the event loop are written in one
 * transaction, and each caller's promise settles only after that commit. Durability is
 * unchanged (nothing is answered before it is committed), but a burst pays for one commit
 * instead of one per item.
 *
 * Items are written one after the other, at first without a savepoint each (a savepoint costs
 * two statements per item on SQLite and two round trips on PostgreSQL, and items almost never
 * fail). When one throws, the whole transaction is rolled back and the batch written again,
 * each item in its own savepoint (a nested tx): the one that throws is rolled back and rejected
 * alone, and the others still commit. A batch of one needs no second pass: its error is its
 * own. A failure of the database itself (DatabaseUnavailableError: lost, locked, busy, full,
 * I/O) rejects the whole batch.
 *
 * `before` runs once per batch (per pass), inside its transaction, before the items (e.g. to
 * read what every item needs, once); its result is handed to each item. `writeOne` must only
 * write to the database (and read): a pass that is rolled back leaves nothing behind.
 *
 * `writeMany`, if given, writes the first pass's items all at once (e.g. one multi-row INSERT
 * instead of one per item) and answers what `writeOne` would have answered for each, in order.
 * When it throws, the pass is rolled back as above and the second pass writes each item with
 * `writeOne`, in its own savepoint: `writeMany` is a shortcut for the common case, `writeOne`
 * says what each item means.
 *
 * `writeManyNow`, if given, is tried first: the same as `writeMany`, but at once, synchronously,
 * in a transaction of its own (Sql.txNow, SQLite), so a batch makes no promise on its way to the
 * commit. It answers undefined when the database cannot now (PostgreSQL, or a transaction holds
 * the connection): then the batch goes the async way above. When it throws, it is as `writeMany`
 * throwing: the second pass writes each item alone. `before` does not run for it: give it only
 * where there is no `before`.
 *
 * The function returned answers a promise per item; its `add(item, onValue, onError)` answers
 * by callbacks instead, for a hot path (the webhook intake) that would otherwise make a promise
 * per item and another per step that follows it. Both go into the same batch.
 */
import { DatabaseUnavailableError } from './sql/types.js';

type Tx = <X>(fn: () => Promise<X>) => Promise<X>;
type Outcome<R> = { ok: true; value: R } | { ok: false; error: unknown };

export interface GroupCommitOptions<T, R, C> {
  /** Once per pass, in its transaction, before the items: its result is each item's context. */
  before?: () => Promise<C>;
  /** The first pass's items at once: what writeOne would answer for each, in the order given. */
  writeMany?: (items: readonly T[], context: C) => Promise<readonly R[]>;
  /** writeMany synchronously, in its own transaction; undefined when the database cannot now. */
  writeManyNow?: (items: readonly T[]) => readonly R[] | undefined;
}

/** A group commit: a promise per item, or `add` with callbacks (called once, after the commit). */
export interface GroupCommit<T, R> {
  (item: T): Promise<R>;
  add(item: T, onValue: (value: R) => void, onError: (error: unknown) => void): void;
}

export function groupCommit<T, R, C = undefined>(
  tx: Tx,
  writeOne: (item: T, context: C) => Promise<R>,
  options?: (() => Promise<C>) | GroupCommitOptions<T, R, C>,
): GroupCommit<T, R> {
  const { before, writeMany, writeManyNow } = typeof options === 'function' ? { before: options } : (options ?? {});
  if (before && writeManyNow) throw new Error('groupCommit: writeManyNow runs without `before`; give one or the other');
  let batch: Array<{ item: T; resolve: (r: R) => void; reject: (e: unknown) => void }> = [];

  /** Every item in one transaction; the first error ends (and rolls back) all of it. */
  const allOrNothing = (items: T[]): Promise<Array<Outcome<R>>> =>
    tx(async () => {
      const context = (before ? await before() : undefined) as C;
      if (writeMany) return outcomes(await writeMany(items, context), items.length);
      const out: Array<Outcome<R>> = [];
      for (const item of items) out.push({ ok: true, value: await writeOne(item, context) });
      return out;
    });

  /** Each item in its own savepoint: one that throws is rolled back alone. */
  const oneByOne = (items: T[]): Promise<Array<Outcome<R>>> =>
    tx(async () => {
      const context = (before ? await before() : undefined) as C;
      const out: Array<Outcome<R>> = [];
      for (const item of items) {
        try {
          out.push({ ok: true, value: await tx(() => writeOne(item, context)) });
        } catch (error) {
          // A lost or failing database is not this item's fault: it fails the whole batch at
          // once (each other item would fail or wait again, and after an error that ended the
          // transaction they would commit on their own).
          if (error instanceof DatabaseUnavailableError) throw error;
          out.push({ ok: false, error });
        }
      }
      return out;
    });

  /** Whether a first pass's error leaves the second pass (each item alone) to try. */
  const secondPass = (error: unknown, items: T[]) => !(error instanceof DatabaseUnavailableError) && items.length > 1;

  const flush = (): void => {
    const current = batch;
    batch = [];
    const items = current.map((c) => c.item);
    let now: readonly R[] | undefined;
    try {
      now = writeManyNow?.(items);
    } catch (error) {
      void flushAsync(current, items, { error });
      return;
    }
    if (now) {
      // Checked after the commit here: a count that does not match (a bug) refuses every item
      // although each is stored; a webhook so refused comes again and is found a duplicate.
      let results: Array<Outcome<R>>;
      try {
        results = outcomes(now, items.length);
      } catch (error) {
        return answer(current, undefined, error);
      }
      return answer(current, results);
    }
    void flushAsync(current, items);
  };

  /** The async way: the first pass in tx() (unless the first pass at once already failed), then the second if need be. */
  const flushAsync = async (current: typeof batch, items: T[], failedNow?: { error: unknown }): Promise<void> => {
    let results: Array<Outcome<R>>;
    try {
      try {
        if (failedNow) throw failedNow.error;
        results = await allOrNothing(items);
      } catch (error) {
        if (!secondPass(error, items)) throw error;
        results = await oneByOne(items);
      }
    } catch (error) {
      return answer(current, undefined, error);
    }
    answer(current, results);
  };

  /** Each item's answer: its outcome, or the batch's error when there are none. */
  const answer = (current: typeof batch, results: Array<Outcome<R>> | undefined, error?: unknown): void => {
    if (!results) {
      for (const c of current) settle(c.reject, error);
      return;
    }
    for (let i = 0; i < current.length; i++) {
      const c = current[i];
      const r = results[i];
      if (r.ok) settle(c.resolve, r.value);
      else settle(c.reject, r.error);
    }
  };
  /**
   * A callback of `add` that throws must not leave the rest of its batch unanswered: its error
   * is thrown again on its own (as an unhandled rejection of the promise form would surface).
   */
  const settle = <V>(f: (v: V) => void, v: V): void => {
    try {
      f(v);
    } catch (error) {
      process.nextTick(() => {
        throw error;
      });
    }
  };
  const add = (item: T, resolve: (r: R) => void, reject: (e: unknown) => void): void => {
    if (batch.push({ item, resolve, reject }) === 1) setImmediate(flush);
  };
  return Object.assign((item: T) => new Promise<R>((resolve, reject) => add(item, resolve, reject)), { add });
}

/** A whole pass's values as outcomes; a count that does not match the items is an error. */
function outcomes<R>(values: readonly R[], count: number): Array<Outcome<R>> {
  if (values.length !== count) throw new Error(`groupCommit: writeMany answered ${values.length} results for ${count} items`);
  return values.map((value) => ({ ok: true as const, value }));
}
