// The per-channel pacer is a pure unit: vitest's fake timers drive its clock and its waits.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ChannelPacer } from '../../src/notify/pacer.js';

describe('ChannelPacer', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 1_000_000 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const pacer = (perPlatformMs?: { discord?: number }) => new ChannelPacer({ now: () => Date.now(), intervalMs: 1000, perPlatformMs });
  /** Runs a call and records the (fake) time it went out. */
  const stamp = (p: ChannelPacer, platform: 'slack' | 'discord', channel: string, out: Array<[string, number]>) =>
    p.run(platform, channel, async () => {
      out.push([channel, Date.now()]);
    });

  it('spaces calls in one channel one interval apart, counted from when the previous call finished', async () => {
    const p = pacer();
    const out: Array<[string, number]> = [];
    // The first call takes 300 ms (a slow platform): the next slot is 1000 ms after it ended.
    const first = p.run('slack', 'C1', async () => {
      out.push(['C1', Date.now()]);
      await new Promise((r) => setTimeout(r, 300));
    });
    const second = first.then(() => stamp(p, 'slack', 'C1', out));
    await vi.runAllTimersAsync();
    await second;
    expect(out.map(([, t]) => t - 1_000_000)).toEqual([0, 1300]);
  });

  it('lets another channel go on while one waits', async () => {
    const p = pacer();
    const out: Array<[string, number]> = [];
    await stamp(p, 'slack', 'C1', out);
    expect(p.ready('slack', 'C1', Date.now())).toBe(false);
    expect(p.ready('slack', 'C2', Date.now())).toBe(true);
    await stamp(p, 'slack', 'C2', out);
    expect(out).toEqual([
      ['C1', 1_000_000],
      ['C2', 1_000_000],
    ]);
    vi.advanceTimersByTime(1000);
    expect(p.ready('slack', 'C1', Date.now())).toBe(true);
  });

  it('uses the platform’s own interval when one is given', async () => {
    const p = pacer({ discord: 250 });
    const out: Array<[string, number]> = [];
    await stamp(p, 'discord', 'D1', out);
    const next = stamp(p, 'discord', 'D1', out);
    await vi.runAllTimersAsync();
    await next;
    expect(out.map(([, t]) => t - 1_000_000)).toEqual([0, 250]);
  });

  it('holds a channel until the time the platform asked for, and a failed call still takes its slot', async () => {
    const p = pacer();
    const out: Array<[string, number]> = [];
    await expect(p.run('slack', 'C1', () => Promise.reject(new Error('429')))).rejects.toThrow('429');
    p.holdUntil('slack', 'C1', Date.now() + 5000);
    const next = stamp(p, 'slack', 'C1', out);
    await vi.runAllTimersAsync();
    await next;
    expect(out.map(([, t]) => t - 1_000_000)).toEqual([5000]);
  });
});
