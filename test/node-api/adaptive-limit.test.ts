/**
 * The AIMD limit of the call scheduler, as a pure unit: slow start while calls answer and their
 * latency holds, a multiplicative decrease when too many of a window's calls are dropped, and no
 * change for a call that failed for its own reasons or answered slowly.
 */
import { describe, expect, it } from 'vitest';
import { AdaptiveLimit, type CallOutcome } from '../../src/node-api/index.js';

const feed = (l: AdaptiveLimit, n: number, outcome: CallOutcome, latencyMs = 50) => {
  for (let i = 0; i < n; i++) l.record({ outcome, latencyMs, inFlight: l.limit });
};

describe('AdaptiveLimit (AIMD)', () => {
  it('grows by one a call in slow start while latency holds, up to its max', () => {
    const l = new AdaptiveLimit({ initial: 4, min: 1, max: 64 });
    feed(l, 10, 'ok');
    expect(l.limit).toBe(14);
    feed(l, 100, 'ok');
    expect(l.limit).toBe(64);
  });

  it('does not grow while the limit is not in use (less than half of it in flight)', () => {
    const l = new AdaptiveLimit({ initial: 16, min: 1, max: 64 });
    for (let i = 0; i < 50; i++) l.record({ outcome: 'ok', latencyMs: 50, inFlight: 2 });
    expect(l.limit).toBe(16);
  });

  it('does not grow when the latency no longer holds', () => {
    const l = new AdaptiveLimit({ initial: 8, min: 1, max: 64, latencyTolerance: 2 });
    feed(l, 1, 'ok', 50);
    const after = l.limit;
    feed(l, 20, 'ok', 500);
    expect(l.limit).toBe(after);
  });

  it('shrinks multiplicatively when a window has too many drops, then grows additively', () => {
    const l = new AdaptiveLimit({ initial: 40, min: 2, max: 64, backoff: 0.5, dropTolerance: 0.1 });
    feed(l, 40, 'drop');
    expect(l.limit).toBe(20);
    expect(l.inSlowStart).toBe(false);
    // Additive: about one more per window of `limit` calls.
    feed(l, 10, 'ok');
    expect(l.limit).toBe(20);
    feed(l, 15, 'ok');
    expect(l.limit).toBe(21);
    feed(l, 1000, 'drop');
    expect(l.limit).toBe(2);
  });

  it('tolerates a few drops in a window (a dead node among many) when told to', () => {
    const l = new AdaptiveLimit({ initial: 20, min: 1, max: 20, dropTolerance: 0.1 });
    for (let i = 0; i < 20; i++) l.record({ outcome: i === 3 ? 'drop' : 'ok', latencyMs: 50, inFlight: 20 });
    expect(l.limit).toBe(20);
    expect(l.inSlowStart).toBe(true);
  });

  it('leaves the limit alone for calls that failed for their own reasons', () => {
    const l = new AdaptiveLimit({ initial: 4, min: 1, max: 4 });
    feed(l, 48, 'neutral');
    expect(l.limit).toBe(4);
    feed(l, 4, 'drop');
    expect(l.limit).toBe(2);
  });

  it('keeps its bounds whatever it is given', () => {
    const l = new AdaptiveLimit({ initial: 100, min: 0, max: 8 });
    expect(l.limit).toBe(8);
    feed(l, 500, 'drop');
    expect(l.limit).toBe(1);
  });
});
