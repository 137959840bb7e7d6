import { afterEach, describe, expect, it, vi } from 'vitest';
import { every } from '../../src/vocabulary/index.js';

afterEach(() => vi.useRealTimers());

describe('every', () => {
  it('runs a pass on each tick, never two at once, and run() joins the pass under way', async () => {
    vi.useFakeTimers();
    let passes = 0;
    let release: () => void = () => undefined;
    const loop = every(
      () => {
        passes++;
        return new Promise<void>((r) => (release = r));
      },
      1_000,
      () => undefined,
    );
    loop.start();
    expect(passes).toBe(0);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(passes).toBe(1);
    // The first pass is still under way: a tick and a run() join it instead of starting another.
    await vi.advanceTimersByTimeAsync(1_000);
    const joined = loop.run();
    expect(passes).toBe(1);
    release();
    await joined;
    await vi.advanceTimersByTimeAsync(1_000);
    expect(passes).toBe(2);
    release();
    await loop.stop();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(passes).toBe(2);
  });

  it('starts with a pass at once when asked', async () => {
    vi.useFakeTimers();
    let passes = 0;
    const loop = every(
      async () => void passes++,
      30_000,
      () => undefined,
    );
    loop.start({ now: true });
    await vi.advanceTimersByTimeAsync(0);
    expect(passes).toBe(1);
    await loop.stop();
  });

  it('hands a failed pass the timer started to onError instead of leaving a rejection nobody awaits', async () => {
    vi.useFakeTimers();
    const errors: unknown[] = [];
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown) => void unhandled.push(e);
    process.on('unhandledRejection', onUnhandled);
    try {
      const loop = every(
        () => Promise.reject(new Error('the database is unavailable')),
        1_000,
        (e) => void errors.push(e),
      );
      loop.start({ now: true });
      await vi.advanceTimersByTimeAsync(2_000);
      await loop.stop();
      vi.useRealTimers();
      await new Promise((r) => setTimeout(r, 20));
      expect(errors).toHaveLength(3);
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
