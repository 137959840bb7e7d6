/**
 * A pass of the outbox worker that a wake starts goes after the webhook commits queued in the
 * same turn (the wake's timer is set from an immediate, as letThrough's): its routing chunk and
 * its reads are background work, and the batch's 2xx does not wait for them.
 */
import { afterEach, expect, test } from 'vitest';
import { silentLogger } from '../../src/log.js';
import { OutboxWorker } from '../../src/notify/index.js';
import { NotifyStore, openDatabase } from '../../src/store/index.js';
import { inPollPhase, recordingCommit } from '../support/loop-turns.js';
import { waitFor } from '../support/wait-for.js';

const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

test("a woken pass starts after the webhook commits queued in the wake's turn", async () => {
  const db = openDatabase(':memory:');
  cleanup.push(() => db.close());
  const order: string[] = [];
  const worker = new OutboxWorker({
    store: new NotifyStore(db),
    posters: {},
    prepareMessage: (m) => m,
    logger: silentLogger,
    now: Date.now,
    // No poll pass in the test: only start()'s and the wake's.
    pollMs: 3_600_000,
    route: async () => {
      order.push('pass');
      return true;
    },
  });
  cleanup.push(() => worker.stop());
  worker.start();
  await waitFor(() => order.length > 0, { what: "start()'s pass" });
  expect(order).toEqual(['pass']);
  const commit = recordingCommit(order);
  let answered!: Promise<string[]>;
  // In the poll phase, where a webhook's body ends: the intake wakes the worker (an event stored
  // at the end of a coalescing window, say), and in the same turn two bodies end.
  await inPollPhase(() => {
    worker.wake();
    answered = Promise.all([commit('a'), commit('b')]);
  });
  expect(await answered).toEqual(['a', 'b']);
  await waitFor(() => order.length === 3, { what: 'the woken pass' });
  // Woken by an immediate alone, the pass went first: ['pass', 'pass', 'commit a, b'].
  expect(order).toEqual(['pass', 'commit a, b', 'pass']);
});
