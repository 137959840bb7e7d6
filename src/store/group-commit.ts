/**
 * Group commit: items that arrive in the same turn of the event loop are written in one
 * transaction, and each caller's promise settles only after that commit. Durability is
 * unchanged (nothing is answered before it is committed), but a burst pays for one commit
 * instead of one per item. Each item runs in its own savepoint (a nested tx), one after the
 * other: one that throws is rolled back and rejected alone, and the others still commit; a
 * failure of the database itself (DatabaseUnavailableError: lost, locked, busy, full, I/O)
 * rejects the whole batch.
 *
 * `before` runs once per batch, inside its transaction, before the items (e.g. to read what
 * every item needs, once); its result is handed to each item.
 */
import { DatabaseUnavailableError } from './sql/types.js';

type Tx = <X>(fn: () => Promise<X>) => Promise<X>;

export function groupCommit<T, R, C = undefined>(
  tx: Tx,
  writeOne: (item: T, context: C) => Promise<R>,
  before?: () => Promise<C>,
): (item: T) => Promise<R> {
  let batch: Array<{ item: T; resolve: (r: R) => void; reject: (e: unknown) => void }> = [];
  const flush = async (): Promise<void> => {
    const current = batch;
    batch = [];
    let results: Array<{ ok: true; value: R } | { ok: false; error: unknown }>;
    try {
      results = await tx(async () => {
        const context = (before ? await before() : undefined) as C;
        const out: typeof results = [];
        for (const { item } of current) {
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
    } catch (error) {
      for (const c of current) c.reject(error);
      return;
    }
    current.forEach((c, i) => {
      const r = results[i];
      if (r.ok) c.resolve(r.value);
      else c.reject(r.error);
    });
  };
  return (item) =>
    new Promise<R>((resolve, reject) => {
      if (batch.push({ item, resolve, reject }) === 1) setImmediate(() => void flush());
    });
}
