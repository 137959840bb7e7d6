/**
 * The call scheduler as a unit, with work that the test ends by hand: it never runs more than its
 * overall and per-node bounds, a node at its bound does not hold up the others, the overall limit
 * grows as work answers and shrinks when most of a round is dropped, a node that sheds load gets
 * fewer pieces at once, and a piece past its deadline is cut while the others carry on.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createCallScheduler, NodeDeadlineError, NodeApiError } from '../../src/node-api/index.js';

interface Gate {
  node: string;
  open(): void;
  fail(e: Error): void;
}

/** Work that ends when the test says; `running` lists what runs now. */
function gates() {
  const running: Gate[] = [];
  const work = (node: string) => () =>
    new Promise<string>((resolve, reject) => {
      const g: Gate = {
        node,
        open: () => {
          running.splice(running.indexOf(g), 1);
          resolve(node);
        },
        fail: (e) => {
          running.splice(running.indexOf(g), 1);
          reject(e);
        },
      };
      running.push(g);
    });
  return { running, work };
}

const tick = () => new Promise((r) => setImmediate(r));
let clock = 0;
const now = () => clock;

afterEach(() => {
  vi.useRealTimers();
});

describe('createCallScheduler', () => {
  it('starts no more than its overall limit, then the next as each ends, in the order asked', async () => {
    const s = createCallScheduler({ maxConcurrency: 4, initialConcurrency: 4, now });
    const { running, work } = gates();
    const done = Array.from({ length: 10 }, (_, i) => s.run(`n${i}`, work(`n${i}`)));
    await tick();
    expect(running.map((g) => g.node)).toEqual(['n0', 'n1', 'n2', 'n3']);
    running[0].open();
    await tick();
    expect(running.map((g) => g.node)).toEqual(['n1', 'n2', 'n3', 'n4']);
    while (running.length) {
      expect(running.length).toBeLessThanOrEqual(4);
      running[0].open();
      await tick();
    }
    expect(await Promise.all(done)).toEqual(Array.from({ length: 10 }, (_, i) => `n${i}`));
    expect(s.stats()).toMatchObject({ peakInFlight: 4, inFlight: 0, queued: 0, done: 10 });
  });

  it('keeps to its bound per node, and lets other nodes run past a full one', async () => {
    const s = createCallScheduler({ maxConcurrency: 8, initialConcurrency: 8, perNodeMax: 2, now });
    const { running, work } = gates();
    for (let i = 0; i < 5; i++) void s.run('busy', work('busy'));
    void s.run('other', work('other'));
    await tick();
    expect(running.filter((g) => g.node === 'busy')).toHaveLength(2);
    expect(running.some((g) => g.node === 'other')).toBe(true);
    while (running.length) {
      expect(running.filter((g) => g.node === 'busy').length).toBeLessThanOrEqual(2);
      running[0].open();
      await tick();
    }
    expect(s.stats().peakPerNode).toBe(2);
  });

  it('grows its limit while work answers in time, up to its max, and never past it', async () => {
    const s = createCallScheduler({ maxConcurrency: 32, initialConcurrency: 4, now });
    const { running, work } = gates();
    const all = Array.from({ length: 200 }, (_, i) => s.run(`n${i}`, work(`n${i}`)));
    await tick();
    expect(running).toHaveLength(4);
    while (running.length) {
      expect(running.length).toBeLessThanOrEqual(32);
      clock += 50;
      for (const g of [...running]) g.open();
      await tick();
    }
    await Promise.all(all);
    expect(s.stats().limit).toBe(32);
    expect(s.stats().peakInFlight).toBe(32);
  });

  it('shrinks its limit when most of a round is dropped (429, 5xx), and a node that sheds load gets one piece at a time', async () => {
    const s = createCallScheduler({ maxConcurrency: 16, initialConcurrency: 16, minConcurrency: 2, perNodeMax: 4, now });
    const { running, work } = gates();
    const busy = new NodeApiError({ kind: 'http', endpoint: 'nodeinfo', status: 429, message: 'Too many requests' });
    const all = Array.from({ length: 64 }, (_, i) => s.run(`n${i % 4}`, work(`n${i % 4}`)).catch(() => 'dropped'));
    await tick();
    while (running.length) {
      for (const g of [...running]) g.fail(busy);
      await tick();
    }
    await Promise.all(all);
    expect(s.stats().limit).toBeLessThan(16);
    expect(s.nodeLimit('n0')).toBe(1);
    // A node that answers again grows back.
    const again = Array.from({ length: 20 }, () => s.run('n0', work('n0')));
    await tick();
    while (running.length) {
      for (const g of [...running]) g.open();
      await tick();
    }
    await Promise.all(again);
    expect(s.nodeLimit('n0')).toBe(4);
  });

  it('does not shrink for errors that are the node’s own (a locked wallet)', async () => {
    const s = createCallScheduler({ maxConcurrency: 8, initialConcurrency: 8, perNodeMax: 2, now });
    const { running, work } = gates();
    const locked = new NodeApiError({ kind: 'rln', endpoint: 'btcbalance', status: 403, rlnName: 'LockedNode', message: 'locked' });
    const all = Array.from({ length: 40 }, (_, i) => s.run(`n${i % 5}`, work(`n${i % 5}`)).catch(() => 'locked'));
    await tick();
    while (running.length) {
      for (const g of [...running]) g.fail(locked);
      await tick();
    }
    await Promise.all(all);
    expect(s.stats().limit).toBe(8);
    expect(s.nodeLimit('n0')).toBe(2);
  });

  it('cuts a piece at its deadline, from when it started, and the others still answer', async () => {
    vi.useFakeTimers();
    const s = createCallScheduler({ maxConcurrency: 2, initialConcurrency: 2, deadlineMs: 1_000, now });
    const { running, work } = gates();
    const slow = s.run('slow', work('slow'));
    const slowSeen = slow.catch((e: unknown) => e);
    const fast = s.run('fast', work('fast'));
    const queued = s.run('later', work('later'));
    await vi.advanceTimersByTimeAsync(0);
    running.find((g) => g.node === 'fast')!.open();
    await vi.advanceTimersByTimeAsync(0);
    expect(await fast).toBe('fast');
    // `later` started when `fast` ended: its deadline counts from then, not from when it was queued.
    await vi.advanceTimersByTimeAsync(999);
    running.find((g) => g.node === 'later')!.open();
    expect(await queued).toBe('later');
    await vi.advanceTimersByTimeAsync(1);
    const e = await slowSeen;
    expect(e).toBeInstanceOf(NodeDeadlineError);
    expect((e as NodeDeadlineError).ms).toBe(1_000);
    // It keeps its place in the bound until its work really ends.
    expect(s.stats().inFlight).toBe(1);
    running.find((g) => g.node === 'slow')!.open();
    await vi.advanceTimersByTimeAsync(0);
    expect(s.stats()).toMatchObject({ inFlight: 0, deadlines: 1 });
  });

  it('tells a call cut by the deadline as the deadline, when the call’s timeout comes before its timer', async () => {
    vi.useFakeTimers();
    const s = createCallScheduler({ deadlineMs: 1_000, now });
    const { running, work } = gates();
    const piece = s.run('n0', work('n0')).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(0);
    // The deadline has come (the clock says so) and the call's attempt, cut with it, ended first.
    clock += 1_000;
    running[0].fail(new NodeApiError({ endpoint: 'btcbalance', kind: 'timeout', message: 'n0 did not answer in 1 s' }));
    const e = await piece;
    expect(e).toBeInstanceOf(NodeDeadlineError);
    expect((e as NodeDeadlineError).ms).toBe(1_000);
    // Before the deadline, a call's own timeout is its own.
    const early = s.run('n1', work('n1')).catch((x: unknown) => x);
    await vi.advanceTimersByTimeAsync(0);
    running[0].fail(new NodeApiError({ endpoint: 'btcbalance', kind: 'timeout', message: 'n1 did not answer in 0.2 s' }));
    expect(await early).toBeInstanceOf(NodeApiError);
  });

  it('map keeps the input order and gives onError what failed or passed its deadline', async () => {
    const s = createCallScheduler({ maxConcurrency: 3, now });
    const out = await s.map(
      [1, 2, 3, 4, 5],
      (n) => `n${n}`,
      async (n): Promise<number | string> => {
        if (n === 3) throw new Error('three');
        return n * 10;
      },
      { onError: (e) => (e as Error).message },
    );
    expect(out).toEqual([10, 20, 'three', 40, 50]);
  });
});
