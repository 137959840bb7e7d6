/**
 * A concurrency limit that adapts to what the calls it admits answer: AIMD (additive increase,
 * multiplicative decrease), the rule TCP uses for its congestion window, as Netflix's
 * concurrency-limits library applies it to calls ("AIMDLimit"), with TCP's slow start.
 *
 * - Increase: a call that answered in time, while the limit is in use (at least half of it in
 *   flight) and its latency holds (within `latencyTolerance` × the baseline, the lowest latency
 *   seen lately), raises the limit: by 1 per call in slow start (about doubling each round trip),
 *   by 1/limit per call afterwards (about +1 each round trip).
 * - Decrease: the calls are counted in windows of `limit` calls (about one round trip). When more
 *   than `dropTolerance` of a window's calls were dropped (a timeout, a 429, a 5xx, a node that
 *   could not be reached), the limit is multiplied by `backoff` and slow start ends. One decrease
 *   a window at most, as TCP does once per round trip.
 * - Neither: a call that failed for its own reasons (a locked node, a bad request), or a slow
 *   answer, leaves the limit where it is.
 *
 * Pure: no clock, no timers. The caller says how long a call took and how many were in flight.
 */

export interface AdaptiveLimitOptions {
  /** Where the limit starts. */
  initial: number;
  min: number;
  max: number;
  /** The multiplicative decrease, 0 < backoff < 1. Default 0.7. */
  backoff?: number;
  /** The share of a window's calls that may be dropped before the limit shrinks. Default 0 (any drop). */
  dropTolerance?: number;
  /** Latency holds while a call takes at most this many times the baseline. Default 2. */
  latencyTolerance?: number;
}

/** How a call ended, for the limit: answered, dropped (overload: timeout, 429, 5xx, unreachable), or failed for its own reasons. */
export type CallOutcome = 'ok' | 'drop' | 'neutral';

export interface CallSample {
  outcome: CallOutcome;
  /** How long the call took. */
  latencyMs: number;
  /** Calls in flight when it started (itself included). */
  inFlight: number;
}

/** Below this, a latency is "holding" whatever the baseline (loopback answers in well under 1 ms). */
const LATENCY_FLOOR_MS = 5;

export class AdaptiveLimit {
  private value: number;
  private slowStart = true;
  private baselineMs: number | undefined;
  private windowCalls = 0;
  private windowDrops = 0;
  private readonly o: Required<AdaptiveLimitOptions>;

  constructor(o: AdaptiveLimitOptions) {
    const min = Math.max(1, Math.floor(o.min));
    const max = Math.max(min, Math.floor(o.max));
    this.o = {
      min,
      max,
      initial: Math.min(max, Math.max(min, Math.floor(o.initial))),
      backoff: Math.min(0.95, Math.max(0.1, o.backoff ?? 0.7)),
      dropTolerance: Math.min(1, Math.max(0, o.dropTolerance ?? 0)),
      latencyTolerance: Math.max(1, o.latencyTolerance ?? 2),
    };
    this.value = this.o.initial;
  }

  /** Calls that may be in flight now. */
  get limit(): number {
    return Math.floor(this.value);
  }

  /** Whether the limit still grows by one a call (no drop seen yet). */
  get inSlowStart(): boolean {
    return this.slowStart;
  }

  /** The latency the limit compares with (the lowest seen lately), once a call has answered. */
  get baseline(): number | undefined {
    return this.baselineMs;
  }

  /** Takes one finished call into account. */
  record(s: CallSample): void {
    this.windowCalls++;
    if (s.outcome === 'drop') this.windowDrops++;
    if (s.outcome === 'ok') {
      const latency = Math.max(0, s.latencyMs);
      const holds = this.baselineMs === undefined || latency <= Math.max(LATENCY_FLOOR_MS, this.baselineMs * this.o.latencyTolerance);
      // The baseline follows the lowest latency, and drifts up slowly so that it can follow a node that got slower for good.
      this.baselineMs = this.baselineMs === undefined ? latency : Math.min(latency, this.baselineMs + (latency - this.baselineMs) * 0.01);
      if (holds && s.inFlight * 2 >= this.limit) {
        this.value = Math.min(this.o.max, this.value + (this.slowStart ? 1 : 1 / this.value));
      }
    }
    if (this.windowCalls >= Math.max(1, this.limit)) this.closeWindow();
  }

  private closeWindow(): void {
    if (this.windowDrops > 0 && this.windowDrops / this.windowCalls > this.o.dropTolerance) {
      this.value = Math.max(this.o.min, this.value * this.o.backoff);
      this.slowStart = false;
    }
    this.windowCalls = 0;
    this.windowDrops = 0;
  }
}
