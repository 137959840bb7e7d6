/**
 * Several rows per statement, with few statement texts: a list of rows is written in runs of a
 * few fixed sizes, largest first (sizes 64, 8, 1: 75 rows are 64 + 8 + 1 + 1 + 1), so each
 * statement is one of `sizes.length` texts, each prepared (SQLite) or parsed once, whatever
 * the count.
 */
export interface ForEachChunk {
  (count: number, write: (values: string, start: number, size: number) => Promise<void>): Promise<void>;
  /** The same runs at once, for a synchronous writer: each run's VALUES list, first row and size. */
  runs(count: number): Array<{ values: string; start: number; size: number }>;
}

/**
 * `tuple` is one row's `(…)` of a VALUES list; the result calls `write` once per run of rows,
 * in order, with the run's VALUES list (`tuple, tuple, …`), its first row and its size.
 */
export function rowChunks(sizes: readonly number[], tuple: string): ForEachChunk {
  if (sizes[sizes.length - 1] !== 1 || sizes.some((s, i) => i > 0 && s >= sizes[i - 1])) {
    throw new Error('rowChunks: sizes must be decreasing and end with 1');
  }
  const lists = new Map<number, string>(sizes.map((n) => [n, Array.from({ length: n }, () => tuple).join(', ')]));
  const runs = (count: number) => {
    const out: Array<{ values: string; start: number; size: number }> = [];
    for (let start = 0; start < count; ) {
      const size = sizes.find((s) => s <= count - start)!;
      out.push({ values: lists.get(size)!, start, size });
      start += size;
    }
    return out;
  };
  const forEach = async (count: number, write: (values: string, start: number, size: number) => Promise<void>) => {
    for (const r of runs(count)) await write(r.values, r.start, r.size);
  };
  return Object.assign(forEach, { runs });
}
