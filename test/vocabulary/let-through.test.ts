import { expect, test } from 'vitest';
import { letThrough } from '../../src/vocabulary/index.js';
import { countLoopTurns, inPollPhase, recordingCommit } from '../support/loop-turns.js';

test('background work that lets the loop through goes on after the webhook commits queued meanwhile', async () => {
  const order: string[] = [];
  const commit = recordingCommit(order);
  let background!: Promise<void>;
  let answered!: Promise<string[]>;
  await inPollPhase(() => {
    // A routing pass lets the loop through between two chunks; then, in the same turn, two
    // webhooks' bodies end and their batch is queued for its commit.
    background = (async () => {
      order.push('chunk 1');
      await letThrough();
      order.push('chunk 2');
    })();
    answered = Promise.all([commit('a'), commit('b')]);
  });
  await background;
  expect(await answered).toEqual(['a', 'b']);
  // The batch's commit (and so its 2xx) does not wait for the next chunk. Resumed by
  // setImmediate, the chunk went first: ['chunk 1', 'chunk 2', 'commit a, b'].
  expect(order).toEqual(['chunk 1', 'commit a, b', 'chunk 2']);
});

test('two pieces of background work that each hold the loop a while never resume in the turn they paused in', async () => {
  // Counted in the check phase, which follows the poll phase (requests read, commits queued).
  const loop = countLoopTurns();
  /** Holds the event loop for a millisecond and more, as a routed chunk or a read of due rows does. */
  const hold = () => {
    const until = performance.now() + 1.2;
    while (performance.now() < until);
  };
  const sameTurn: string[] = [];
  const piece = async (name: string) => {
    for (let i = 0; i < 40; i++) {
      hold();
      const paused = loop.turns();
      await letThrough();
      if (loop.turns() === paused) sameTurn.push(`${name} ${i}`);
    }
  };
  try {
    await Promise.all([piece('routing'), piece('round')]);
  } finally {
    loop.stop();
  }
  // With a timer alone, one piece's pause ended in the same timers phase as the other's work
  // (Node 20, libuv 1.46), with no request read between them: here, every resumption.
  expect(sameTurn).toEqual([]);
});
