/**
 * How many nodes the activity poller reads at once, and whether it keeps up.
 *
 * Each watched node has a slot, a phase of its own in the interval (create-activity-poller.ts), so
 * polls start evenly spread and not in bursts. What is in flight at once then follows Little's law:
 * polls needed per second (watched nodes / interval) × the time one poll takes. The pacer measures
 * that time (a moving average of the polls' durations, timeouts included), and allows twice the
 * product, for the bunching of phases and the spread of poll times, plus the nodes already waiting
 * past their time, never more than `max` (the bound over all nodes; one poll at a time per node is
 * the poller's). When nodes still wait past their time at the bound, the poller cannot keep up:
 * `behind` says so, for the log and the metrics.
 */

import type { HostedNode } from '../hosting/index.js';

export interface PollPacerOptions {
  intervalMs: number;
  /** The most polls at once, whatever the measure says. */
  max: number;
  /** The fewest (default 2). */
  min?: number;
  /** The poll time assumed before any is measured (default 500 ms). */
  guessMs?: number;
}

export interface PollPacer {
  /** A poll took `ms` (from its start to its end, a timeout included). */
  observe(ms: number): void;
  /** The bound for now: `nodes` watched, `waiting` of them already due and not started. */
  limit(nodes: number, waiting: number): number;
  /** The measured mean poll time, in ms. */
  meanMs(): number;
  /** Polls per second needed to keep `nodes` at the interval. */
  rate(nodes: number): number;
  /** How far behind: a node waiting past its slot by more than `graceMs` is overdue. */
  behind(waitingSince: readonly number[], now: number): { overdue: number; lagMs: number };
  readonly graceMs: number;
}

/** Weight of the latest poll in the moving average (about the last 50 polls count). */
const ALPHA = 0.02;

export function createPollPacer(o: PollPacerOptions): PollPacer {
  const max = Math.max(1, Math.floor(o.max));
  const min = Math.min(max, Math.max(1, o.min ?? 2));
  let mean = o.guessMs ?? 500;
  let measured = 0;
  // Late by a tenth of the interval (3 s at 30 s) is still within the node's interval; more is overdue.
  const graceMs = Math.max(50, o.intervalMs / 10);
  const rate = (nodes: number) => nodes / (o.intervalMs / 1000);
  return {
    graceMs,
    observe(ms) {
      if (!Number.isFinite(ms) || ms < 0) return;
      // The first polls set the mean quickly; then it moves slowly.
      measured++;
      const a = Math.max(ALPHA, 1 / measured);
      mean += a * (ms - mean);
    },
    limit(nodes, waiting) {
      const inFlight = rate(nodes) * (mean / 1000);
      return Math.min(max, Math.max(min, Math.ceil(2 * inFlight) + 1 + waiting));
    },
    meanMs: () => mean,
    rate,
    behind(waitingSince, now) {
      let overdue = 0;
      let lagMs = 0;
      for (const due of waitingSince) {
        const late = now - due;
        if (late > graceMs) overdue++;
        if (late > lagMs) lagMs = late;
      }
      return { overdue, lagMs };
    },
  };
}

/**
 * What the poller keeps of a watched node: its regular slot (on its phase), an earlier time it is
 * wanted at (checkSoon, a liveness confirmation), how many polls in a row found it unreachable (its
 * backoff), polls so far (the slower cadence) and whether the next poll makes the slower checks.
 */
export interface Cadence {
  node: HostedNode;
  slot: number;
  soonAt?: number;
  misses: number;
  polls: number;
  slowNext?: boolean;
  /** Its last poll failed (not the node: the store, or a bug): pollOnce polls it again. */
  failed?: boolean;
}

export const dueOf = (c: Cadence): number => (c.soonAt === undefined ? c.slot : Math.min(c.slot, c.soonAt));
