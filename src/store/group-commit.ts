/**
 * Group commit: items that arrive in the same turn of the event loop are written in one
 * SQLite transaction, and each caller's promise settles only after that commit. Durability
 * is unchanged (nothing is answered before it is on disk), but a burst pays for one commit
 * instead of one per item. Each item runs in its own savepoint: one that throws is rolled
 * back and rejected alone, and the others still commit; an error of the database itself
 * (locked, busy, full, I/O) rejects the whole batch.
 */
const BATCH_WIDE = ['SQLITE_BUSY', 'SQLITE_LOCKED', 'SQLITE_FULL', 'SQLITE_IOERR', 'SQLITE_NOMEM', 'SQLITE_CORRUPT', 'SQLITE_READONLY'];

function batchWide(error: unknown): boolean {
  const code = error && typeof error === 'object' ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' && BATCH_WIDE.some((c) => code === c || code.startsWith(`${c}_`));
}

export function groupCommit<T, R>(tx: <X>(fn: () => X) => X, writeOne: (item: T) => R): (item: T) => Promise<R> {
  let batch: Array<{ item: T; resolve: (r: R) => void; reject: (e: unknown) => void }> = [];
  const flush = () => {
    const current = batch;
    batch = [];
    let results: Array<{ ok: true; value: R } | { ok: false; error: unknown }>;
    try {
      results = tx(() =>
        current.map(({ item }) => {
          try {
            return { ok: true as const, value: tx(() => writeOne(item)) };
          } catch (error) {
            // A locked or failing database is not this item's fault: it fails the whole batch at
            // once (each other item would wait busy_timeout again, blocking the event loop, and
            // after an error that rolled the transaction back they would commit on their own).
            if (batchWide(error)) throw error;
            return { ok: false as const, error };
          }
        }),
      );
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
      if (batch.push({ item, resolve, reject }) === 1) setImmediate(flush);
    });
}
