/**
 * Gives memory back after a burst. Under load V8 grows its heap (the young generation to its
 * maximum, the old one with it), and an idle process runs no garbage collection, so nothing
 * shrinks it again: measured (issue 18), RSS stayed 60% over idle long after a 20,000-event
 * burst. Once the heap has grown and the process has gone quiet (its event loop idle over the
 * last check's period), one full collection runs, which returns V8's emptied pages; so does
 * the first quiet period after start-up. It only runs while
 * quiet, so no request waits for it under load. A leaf: imports no room.
 */
import v8 from 'node:v8';
import vm from 'node:vm';
import { performance } from 'node:perf_hooks';

export interface MemorySettleOptions {
  /** Every this long, the heap is looked at. Default 1000 ms. */
  checkMs?: number;
  /** Collect once the heap is this much over its size after the last collection. Default 16 MiB. */
  growthBytes?: number;
  /** Quiet: the event loop was busy less than this share of the last period. Default 0.15. */
  quietUtilization?: number;
  /** For tests: the collector, the heap's size, and the event loop's busy share since the last call. */
  gc?: () => void;
  heapBytes?: () => number;
  busyShare?: () => number;
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
  const timer = setInterval(() => {
    const busy = busyShare();
    const total = heap();
    if (total < settled) settled = total;
    if (total - settled < growth || busy > quiet) return;
    // As V8's own memory reducer does, a few collections in a row: each one can release only
    // what the one before it emptied (measured: one alone left the heap where it was).
    for (let i = 0, before = total; i < 3; i++) {
      gc();
      const after = heap();
      if (after >= before) break;
      before = after;
    }
    settled = heap();
  }, opts.checkMs ?? 1000);
  timer.unref();
  return () => clearInterval(timer);
}
