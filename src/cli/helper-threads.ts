/**
 * Gives the event loop's thread the core first when the process's other threads want it too
 * (issue 29). Besides the event loop a Node process runs helper threads: V8's (optimizing
 * compiler, concurrent marking and sweeping), libuv's pool, and the bot's own worker (the SQLite
 * checkpointer). On one core, or a container limited to one CPU, the kernel shares the core
 * between every runnable thread alike, so a burst of optimizing compiles holds webhooks back.
 * Measured: after a quiet spell, a full collection drops optimized code whose embedded objects
 * died (V8's "weak objects" deoptimization), and the first seconds of the next burst recompile
 * the request path, ~0.9 s of compiler time in 3 s; at a steady 1,000 webhooks/s that start set
 * the routed p99 (first fifth of a run 33–104 ms, the rest 5–32). With the helper threads at
 * nice 10: routed p99 10.3–11.8 ms against 20.0–30.2 in alternating pairs (docs/benchmarks.md,
 * 2026-11-28 21:46), no loss at saturation.
 *
 * Linux makes the nice value a thread's own (setpriority on a thread id), so each thread but
 * the event loop's (its id is the process id) is lowered. A thread started later (libuv's pool
 * starts at its first use) inherits the event loop's priority, hence the periodic look. Raising
 * a nice value needs no privilege; nothing is ever raised back. Elsewhere (no /proc) nothing is done.
 * A leaf: imports no room.
 */
import { readdirSync } from 'node:fs';
import os from 'node:os';

export interface HelperThreadOptions {
  /** The nice value given to every thread but the event loop's (1–19). */
  nice: number;
}

/** One look: lowers each helper thread whose nice value is below `nice`. Returns the ids lowered. */
export function lowerHelperThreads(opts: HelperThreadOptions): number[] {
  // The event loop's thread id is the process id.
  const main = process.pid;
  let tids: string[];
  try {
    tids = readdirSync('/proc/self/task');
  } catch {
    return []; // not Linux: the scheduler's defaults
  }
  const lowered: number[] = [];
  for (const t of tids) {
    const tid = Number(t);
    if (!Number.isInteger(tid) || tid === main) continue;
    try {
      if (os.getPriority(tid) >= opts.nice) continue;
      os.setPriority(tid, opts.nice);
      lowered.push(tid);
    } catch {
      // The thread ended meanwhile, or the system refused: it keeps its priority.
    }
  }
  return lowered;
}

/** Lowers the helper threads now and every `checkMs` (default 30 s; the timer keeps no process alive). Returns a stop. */
export function startHelperThreadPriority(opts: HelperThreadOptions & { checkMs?: number }): { lowered: number; stop: () => void } {
  if (!(opts.nice > 0)) return { lowered: 0, stop: () => undefined };
  const lowered = lowerHelperThreads(opts).length;
  const timer = setInterval(() => lowerHelperThreads(opts), opts.checkMs ?? 30_000);
  timer.unref();
  return { lowered, stop: () => clearInterval(timer) };
}
