import { afterEach, describe, expect, it } from 'vitest';
import { startMemorySettle } from '../src/memory-settle.js';

const MiB = 2 ** 20;
const stops: Array<() => void> = [];
afterEach(() => stops.splice(0).forEach((s) => s()));

/** A heap that the test sizes, a busy share it sets, and a collector that shrinks the heap by half its growth. */
function world(startMiB: number) {
  const w = {
    heap: startMiB * MiB,
    busy: 0,
    collections: 0,
    floor: startMiB * MiB,
    gc: () => {
      w.collections++;
      w.heap = Math.max(w.floor, w.heap - (w.heap - w.floor) / 2);
    },
  };
  return w;
}

const until = async (cond: () => boolean) => {
  for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setTimeout(r, 5));
};
const ticks = (n: number) => new Promise((r) => setTimeout(r, n * 5 + 20));

function start(w: ReturnType<typeof world>) {
  stops.push(startMemorySettle({ checkMs: 5, growthBytes: 16 * MiB, gc: w.gc, heapBytes: () => w.heap, busyShare: () => w.busy }));
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
    await until(() => w.collections > 0);
    expect(w.collections).toBeGreaterThan(0);
    const afterStart = w.collections;
    // A burst grows the heap: nothing while it lasts...
    w.busy = 0.8;
    w.heap += 48 * MiB;
    await ticks(4);
    expect(w.collections).toBe(afterStart);
    // ...and when it is over, collections bring the heap back down.
    w.busy = 0.02;
    await until(() => w.collections > afterStart);
    expect(w.collections - afterStart).toBeGreaterThan(1);
    expect(w.collections - afterStart).toBeLessThanOrEqual(3);
    expect(w.heap).toBeLessThan((60 + 48) * MiB);
  });

  it('leaves a quiet heap alone when it has not grown since it last settled', async () => {
    const w = world(60);
    start(w);
    await until(() => w.collections > 0);
    const settled = w.collections;
    w.heap += 8 * MiB;
    await ticks(6);
    expect(w.collections).toBe(settled);
  });
});
