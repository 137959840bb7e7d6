import { describe, expect, it } from 'vitest';
import { currentDeadline, secondsText, withDeadline } from '../../src/vocabulary/index.js';

describe('withDeadline', () => {
  it('is what the work runs under, and nothing outside it', async () => {
    expect(currentDeadline()).toBeUndefined();
    const seen = await withDeadline(10_000, async () => {
      await Promise.resolve();
      const d = currentDeadline()!;
      return { ms: d.ms, left: d.left() };
    });
    expect(seen.ms).toBe(10_000);
    expect(seen.left).toBeGreaterThan(0);
    expect(seen.left).toBeLessThanOrEqual(10_000);
    expect(currentDeadline()).toBeUndefined();
  });

  it('never reaches past the deadline it runs inside', async () => {
    expect(await withDeadline(1_000, () => withDeadline(60_000, async () => currentDeadline()!.ms))).toBe(1_000);
    expect(await withDeadline(60_000, () => withDeadline(1_000, async () => currentDeadline()!.ms))).toBe(1_000);
  });

  it('closes when its work ends: what the work left running is no longer bound by it', async () => {
    let later: Promise<unknown> | undefined;
    await withDeadline(5_000, async () => {
      later = new Promise((resolve) => setImmediate(() => resolve(currentDeadline())));
    });
    expect(await later).toBeUndefined();
  });

  it('says its length as a message does', () => {
    expect(secondsText(10_000)).toBe('10 s');
    expect(secondsText(1_500)).toBe('1.5 s');
    expect(secondsText(300)).toBe('300 ms');
  });
});
