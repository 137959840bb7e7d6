import { afterEach, describe, expect, it } from 'vitest';
import { startMemorySettle } from '../../src/cli/memory-settle.js';
import { countLoopTurns } from '../support/loop-turns.js';

const MiB = 2 ** 20;
const stops: Array<() => void> = [];
afterEach(() => stops.splice(0).forEach((s) => s()));

/** A heap that the test sizes, a busy share it sets, and a collector that shrinks the heap by half its growth. */
function world(startMiB: number) {
  const w = {
    heap: startMiB * MiB,
    busy: 0,
    collections: 0,
    /** Settling rounds ended: a round's collections are a pause apart, so a test waits for its end. */
    rounds: 0,
    floor: startMiB * MiB,
    gc: () => {
      w.collections++;
      w.heap = Math.max(w.floor, w.heap - (w.heap - w.floor) / 2);
    },
  };
  return w;
}

/** Polls `cond` every 5 ms, for 10 s at most (a bound for a busy machine; the expectation after it fails if it never holds). */
const until = async (cond: () => boolean) => {
  for (let i = 0; i < 2000 && !cond(); i++) await new Promise((r) => setTimeout(r, 5));
};
const ticks = (n: number) => new Promise((r) => setTimeout(r, n * 5 + 20));

function start(w: ReturnType<typeof world>, young = () => 0, resident = () => 0) {
  stops.push(
    startMemorySettle({
      checkMs: 5,
      growthBytes: 16 * MiB,
      gc: w.gc,
      heapBytes: () => w.heap,
      residentBytes: resident,
      youngBytes: young,
      busyShare: () => w.busy,
      onRound: () => w.rounds++,
    }),
  );
}

describe('memory settle', () => {
  it('collects once the heap has grown and the process is quiet, a few times in a row while that frees memory', async () => {
    const w = world(60);
    w.busy = 0.9;
    start(w);
    await ticks(4);
    // Start-up: nothing while busy; then one settling round when quiet.
    expect(w.collections).toBe(0);
    w.busy = 0.01;
    await until(() => w.rounds > 0);
    expect(w.collections).toBeGreaterThan(0);
    const afterStart = w.collections;
    const roundsAtStart = w.rounds;
    // A burst grows the heap: nothing while it lasts...
    w.busy = 0.8;
    w.heap += 48 * MiB;
    await ticks(4);
    expect(w.collections).toBe(afterStart);
    // ...and when it is over, collections bring the heap back down.
    w.busy = 0.02;
    await until(() => w.rounds > roundsAtStart);
    expect(w.collections - afterStart).toBeGreaterThan(1);
    expect(w.collections - afterStart).toBeLessThanOrEqual(3);
    expect(w.heap).toBeLessThan((60 + 48) * MiB);
  });

  it('leaves a quiet heap alone when it has not grown since it last settled', async () => {
    const w = world(60);
    start(w);
    await until(() => w.rounds > 0);
    const settled = w.collections;
    w.heap += 8 * MiB;
    await ticks(6);
    expect(w.collections).toBe(settled);
  });

  it('collects when resident memory has grown though the heap has not, once per growth', async () => {
    const w = world(60);
    // What a burst's garbage holds outside the heap: freed by a collection, or (malloc) kept.
    const r = { size: 100 * MiB, freed: true };
    const gc = w.gc;
    w.gc = () => {
      if (r.freed) r.size = 100 * MiB;
      gc();
    };
    start(
      w,
      () => 0,
      () => r.size,
    );
    await until(() => w.rounds > 0); // start-up's settling
    const before = w.collections;
    // A burst: the heap grows less than the threshold, resident memory more; nothing while busy.
    w.busy = 0.7;
    w.heap += 8 * MiB;
    r.size += 32 * MiB;
    await ticks(4);
    expect(w.collections).toBe(before);
    // Quiet: collected, and resident memory is back.
    w.busy = 0.01;
    const roundsBefore = w.rounds;
    await until(() => w.rounds > roundsBefore);
    expect(w.collections).toBeGreaterThan(before);
    expect(r.size).toBe(100 * MiB);
    const roundsAfter = w.rounds;
    // Grown again but kept this time (malloc holds it): one settling round, then no collection loop.
    r.size += 32 * MiB;
    r.freed = false;
    await until(() => w.rounds > roundsAfter);
    const kept = w.collections;
    await ticks(20);
    expect(w.collections).toBe(kept);
  });

  it('returns a grown young generation once quiet longer than V8 measures its allocation rate over, once per growth', async () => {
    const w = world(60);
    // The young generation: V8 returns it only in a collection made after a quiet while (6 checks here).
    const y = { size: 2 * MiB, shrinks: true };
    let quietSince = 0;
    const gc = w.gc;
    w.gc = () => {
      if (y.shrinks && quietSince >= 6) y.size = 2 * MiB;
      gc();
    };
    let checks = 0;
    stops.push(
      startMemorySettle({
        checkMs: 5,
        growthBytes: 16 * MiB,
        gc: () => w.gc(),
        heapBytes: () => w.heap,
        residentBytes: () => 0,
        youngBytes: () => y.size,
        busyShare: () => {
          checks++;
          quietSince = w.busy > 0.15 ? 0 : quietSince + 1;
          return w.busy;
        },
        onRound: () => w.rounds++,
      }),
    );
    await until(() => w.rounds > 0); // start-up's settling
    const before = w.collections;
    // A pass: busy, the young generation grows to its largest.
    w.busy = 0.6;
    y.size = 32 * MiB;
    await ticks(3);
    expect(w.collections).toBe(before);
    // Quiet: not at once (V8 would keep it), but after the quiet checks, one collection returns it.
    w.busy = 0.01;
    quietSince = 0;
    const from = checks;
    await until(() => y.size === 2 * MiB);
    expect(y.size).toBe(2 * MiB);
    expect(checks - from).toBeGreaterThanOrEqual(6);
    expect(w.collections).toBe(before + 1);
    // Grown again but V8 keeps it this time: one try, then no collection loop while it stays there.
    y.size = 32 * MiB;
    y.shrinks = false;
    await until(() => w.collections > before + 1);
    expect(w.collections).toBe(before + 2);
    await ticks(20);
    expect(w.collections).toBe(before + 2);
  });
  it("lets the event loop through between a round's collections, and stops the round when work came meanwhile", async () => {
    const w = world(60);
    // Turns of the event loop: a collection notes the count.
    const loop = countLoopTurns();
    stops.push(loop.stop);
    const seen: number[] = [];
    /** When set, requests arrive during each collection: the pause after it is busy. */
    let workArrives = false;
    const gc = w.gc;
    w.gc = () => {
      seen.push(loop.turns());
      gc();
      if (workArrives) w.busy = 0.9;
    };
    start(w);
    await until(() => w.rounds > 0); // start-up's settling
    await ticks(4);
    // A burst grows the heap; once quiet, a round of collections brings it down, a pause apart.
    w.busy = 0.8;
    w.heap += 64 * MiB;
    await ticks(2);
    const before = w.collections;
    const roundsBefore = w.rounds;
    w.busy = 0.01;
    await until(() => w.rounds > roundsBefore);
    const round = seen.slice(before);
    expect(round.length).toBeGreaterThanOrEqual(3);
    for (let i = 1; i < round.length; i++) expect(round[i]).toBeGreaterThan(round[i - 1]);
    // Another burst, and work comes in just after the round's first collection: the round stops.
    w.heap += 64 * MiB;
    w.busy = 0.8;
    await ticks(2);
    const second = w.collections;
    const roundsSecond = w.rounds;
    workArrives = true;
    w.busy = 0.01;
    await until(() => w.rounds > roundsSecond);
    await ticks(6);
    expect(w.collections).toBe(second + 1);
    // Quiet again: what that one collection left counts as settled, so no collection every
    // check (a process whose pauses are never quiet would collect every second)...
    workArrives = false;
    w.busy = 0.01;
    await ticks(20);
    expect(w.collections).toBe(second + 1);
    // ...until the heap grows again.
    const roundsThird = w.rounds;
    w.heap += 64 * MiB;
    await until(() => w.rounds > roundsThird);
    expect(w.collections).toBeGreaterThan(second + 1);
  });
});
