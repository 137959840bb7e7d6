/**
 * Gives memory back after a burst. Under load V8 grows its heap (the young generation to its
 * maximum, the old one with it), and an idle process runs no garbage collection, so nothing
 * shrinks it again: measured (issue 18), RSS stayed 60% over idle long after a 20,000-event
 * burst. Once the heap has grown and the process has gone quiet (its event loop idle over the
 * last check's period), one full collection runs, which returns V8's emptied pages; so does
 * the first quiet period after start-up. Grown is the heap or the resident memory: a burst's
 * garbage also holds memory outside the heap (buffers, malloc), which only a collection frees.
 * It only runs while quiet, so no request waits for it under load, and the collections of one
 * round are a pause apart (settleRound): a burst that starts during one waits for that one only.
 * A leaf: imports no room.
 *
 * The young generation needs one more collection, later. V8 grows it (to 2 × 16 MiB) under
 * load and shrinks it only in a full collection made while its measured allocation rate is low,
 * which it measures over the last 5 s: the collection a second after a burst leaves it at its
 * largest. Measured (issue 15, 500 nodes polled): +30 MiB of the polling bot's extra resident
 * memory was the young generation, kept through the 30 s between passes. So once it has grown
 * and the process has been quiet longer than V8's window, one more collection, which returns
 * it; not again until it has grown again (no collection loop in an idle process).
 */
import v8 from 'node:v8';
import vm from 'node:vm';
import { performance } from 'node:perf_hooks';

export interface MemorySettleOptions {
  /** Every this long, the heap is looked at. Default 1000 ms. */
  checkMs?: number;
  /** Collect once the heap, or the process's resident memory, is this much over its size after the last collection. Default 16 MiB. */
  growthBytes?: number;
  /** Quiet: the event loop was busy less than this share of the last period. Default 0.15. */
  quietUtilization?: number;
  /** Return the young generation once it has grown this much and the process has been quiet `youngQuietChecks` checks in a row since any collection of ours. Default 8 MiB, 6 checks (over V8's 5 s window). */
  youngGrowthBytes?: number;
  youngQuietChecks?: number;
  /** For tests: the collector, the heap's size, the resident memory, the young generation's size, and the event loop's busy share since the last call. */
  gc?: () => void;
  heapBytes?: () => number;
  residentBytes?: () => number;
  youngBytes?: () => number;
  busyShare?: () => number;
  /** Called when a settling round has ended, whole or stopped (for tests: a round spans several turns). */
  onRound?: () => void;
}

/** A function that runs a full garbage collection (V8's `gc`, exposed for this process); undefined when this Node will not give one. */
function exposeGc(): (() => void) | undefined {
  const existing = (globalThis as { gc?: () => void }).gc;
  if (existing) return existing;
  try {
    v8.setFlagsFromString('--expose-gc');
    const gc: unknown = vm.runInNewContext('gc');
    return typeof gc === 'function' ? (gc as () => void) : undefined;
  } catch {
    return undefined;
  }
}

/** Starts the checks; returns a function that stops them. The timer does not keep the process alive. */
export function startMemorySettle(opts: MemorySettleOptions = {}): () => void {
  const gc = opts.gc ?? exposeGc();
  // Without a collector there is nothing to do: the process runs as it did before.
  if (!gc) return () => undefined;
  const growth = opts.growthBytes ?? 16 * 2 ** 20;
  const quiet = opts.quietUtilization ?? 0.15;
  const heap = opts.heapBytes ?? (() => v8.getHeapStatistics().total_heap_size);
  const resident = opts.residentBytes ?? (() => process.memoryUsage.rss());
  const young = opts.youngBytes ?? (() => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_size ?? 0);
  const youngGrowth = opts.youngGrowthBytes ?? 8 * 2 ** 20;
  const youngQuietChecks = opts.youngQuietChecks ?? 6;
  let last = performance.eventLoopUtilization();
  const busyShare =
    opts.busyShare ??
    (() => {
      const now = performance.eventLoopUtilization();
      const share = performance.eventLoopUtilization(now, last).utilization;
      last = now;
      return share;
    });
  // 0: the first quiet period after start-up collects too (start-up leaves much garbage).
  let settled = 0;
  /** Resident memory after the last collection (or its least since). */
  let residentSettled = resident();
  /** The young generation's size after the last collection made for it (or its least since). */
  let youngSettled = young();
  let quietChecks = 0;
  const checkMs = opts.checkMs ?? 1000;
  /** Between the collections of one round (see settleRound). */
  const pauseMs = Math.max(1, Math.round(checkMs / 10));
  let settling = false;
  let stopped = false;
  /**
   * As V8's own memory reducer does, a few collections: each one can release only what the one
   * before it emptied (measured: one alone left the heap where it was). Not in a row: each is a
   * full collection on the event loop (80–100 ms for the bot's 35 MiB heap on a pinned core,
   * measured with --trace-gc), and three back to back held a request that came meanwhile for
   * ~260 ms. So after each one the loop is let through for a pause, and when that pause was not
   * quiet the round stops there: the burst that came is served first. What the collections so
   * far left counts as settled, as after a whole round: a round that stopped is not begun again
   * at the next check (a process whose pauses are never quiet would collect every second).
   */
  const settleRound = async (before: number): Promise<void> => {
    settling = true;
    try {
      for (let i = 0; ; i++) {
        gc();
        const after = heap();
        if (after >= before || i === 2) break;
        before = after;
        busyShare(); // the pause alone is measured, not the collection
        // The timer is set from an immediate: on Node 20 a timer alone could end in the same
        // timers phase as the one that set it, when other timers ran a while there, and then the
        // next collection came with no request read between (vocabulary/let-through.ts).
        await new Promise((r) => setImmediate(() => setTimeout(r, pauseMs).unref()));
        if (stopped) return;
        if (busyShare() > quiet) break;
      }
      settled = heap();
      residentSettled = resident();
      // V8's window starts again at this collection: the young generation's turn comes after it.
      quietChecks = 0;
    } finally {
      settling = false;
      opts.onRound?.();
    }
  };
  const timer = setInterval(() => {
    // A round under way measures the loop itself (busyShare is one measure, from its last call).
    if (settling) return;
    const busy = busyShare();
    quietChecks = busy > quiet ? 0 : quietChecks + 1;
    const youngNow = young();
    if (youngNow < youngSettled) youngSettled = youngNow;
    if (youngNow - youngSettled >= youngGrowth && quietChecks >= youngQuietChecks) {
      gc();
      youngSettled = young();
      settled = heap();
      residentSettled = resident();
      return;
    }
    const total = heap();
    if (total < settled) settled = total;
    // Resident memory counts too: with a small young generation a burst grows the heap less than
    // `growth`, but what its garbage holds outside the heap (request buffers, malloc) grows more,
    // and only a collection lets it go (measured, issue 18: +35 MiB resident, +12 MiB heap).
    const rss = resident();
    if (rss < residentSettled) residentSettled = rss;
    if ((total - settled < growth && rss - residentSettled < growth) || busy > quiet) return;
    void settleRound(total);
  }, checkMs);
  timer.unref();

  return () => {
    stopped = true;
    clearInterval(timer);
  };
}
