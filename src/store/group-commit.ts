/**
 * Group commit: items that arrive in the same turn of the event loop are written in one
 * SQLite transaction, and each caller's promise settles only after that commit. Durability
 * is unchanged (nothing is answered before it is on disk), but a burst pays for one commit
 * instead of one per item. Each item runs in its own savepoint: one that throws is rolled
 * back and rejected alone, and the others still commit.
 */
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
            return { ok: false as const, error };
          }
        }),
      );
    } catch (error) {
      for (const c of current) c.reject(error);
      return;
    }
    current.forEach((c, i) => {
      const r = results[i]!;
      if (r.ok) c.resolve(r.value);
      else c.reject(r.error);
    });
  };
  return (item) =>
    new Promise<R>((resolve, reject) => {
      if (batch.push({ item, resolve, reject }) === 1) setImmediate(flush);
    });
}
