/**
 * keepConnected as a pure unit (fake timers): the back-off between attempts, a refusal at start
 * thrown and one later retried at the slowest pace, a drop its library recovers from within the
 * grace, and one it does not.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { keepConnected, type LinkEvents } from '../../src/vocabulary/index.js';

class Refused extends Error {}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** A connection that fails while `down` is true (with `Refused` while `refuse` is), and records its attempts. */
function world() {
  const w = {
    down: true,
    refuse: false,
    attempts: [] as number[],
    disconnects: 0,
    events: undefined as LinkEvents | undefined,
  };
  const link = keepConnected({
    connect: async (events) => {
      w.attempts.push(Date.now());
      if (w.refuse) throw new Refused('token refused');
      if (w.down) throw new Error('ECONNREFUSED');
      w.events = events;
    },
    disconnect: async () => {
      w.disconnects++;
    },
    isFatal: (e) => e instanceof Refused,
    random: () => 0.5, // no jitter
    graceMs: 5_000,
  });
  return { w, link };
}

describe('keepConnected', () => {
  it('starts down without throwing, then retries 1 s, 2 s, 4 s … up to 60 s apart, until it connects', async () => {
    const { w, link } = world();
    const t0 = Date.now();
    await link.start();
    expect(link.status()).toMatchObject({ state: 'down', reason: 'ECONNREFUSED', failures: 1 });
    await vi.advanceTimersByTimeAsync(1_000 + 2_000 + 4_000 + 8_000 + 16_000 + 32_000 + 60_000 + 60_000);
    expect(w.attempts.map((t, i) => (i ? t - w.attempts[i - 1] : t - t0))).toEqual([
      0, 1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000,
    ]);
    w.down = false;
    await vi.advanceTimersByTimeAsync(60_000);
    expect(link.status()).toMatchObject({ state: 'up', failures: 0 });
    await link.stop();
    expect(link.status().state).toBe('stopped');
  });

  it('throws a refusal at start, but retries one after start at the slowest pace', async () => {
    const first = world();
    first.w.refuse = true;
    await expect(first.link.start()).rejects.toThrow('token refused');
    await vi.advanceTimersByTimeAsync(120_000);
    expect(first.w.attempts).toHaveLength(1);

    const later = world();
    await later.link.start();
    later.w.refuse = true;
    await vi.advanceTimersByTimeAsync(1_000);
    expect(later.link.status()).toMatchObject({ state: 'down', reason: 'token refused' });
    await vi.advanceTimersByTimeAsync(59_000);
    expect(later.w.attempts).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(later.w.attempts).toHaveLength(3);
    await later.link.stop();
  });

  it('leaves a drop to its library within the grace, and reconnects itself after it', async () => {
    const { w, link } = world();
    w.down = false;
    await link.start();
    expect(link.status().state).toBe('up');
    // Recovered by its library within the grace: no reconnect of ours.
    w.events!.lost('dropped');
    expect(link.status()).toMatchObject({ state: 'down', reason: 'dropped' });
    w.events!.regained();
    expect(link.status().state).toBe('up');
    await vi.advanceTimersByTimeAsync(10_000);
    expect(w.attempts).toHaveLength(1);
    // Not recovered: after the grace, closed and connected again.
    w.events!.lost('dropped again');
    await vi.advanceTimersByTimeAsync(5_000);
    expect(w.disconnects).toBeGreaterThanOrEqual(1);
    expect(w.attempts).toHaveLength(2);
    expect(link.status().state).toBe('up');
    await link.stop();
  });
});
