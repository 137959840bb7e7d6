import { stat } from 'node:fs';
import { groupCommit } from '../../src/store/group-commit.js';

/**
 * Counts the turns of the event loop, with a chain of immediates (one runs per turn): a test
 * notes `turns()` at two moments to tell whether, and how often, the code between them let the
 * loop through. `stop()` ends the chain; call it from the test's clean-up, so that a failing
 * expectation does not leave it running.
 */
export function countLoopTurns(): { turns: () => number; stop: () => void } {
  let turns = 0;
  let counting = true;
  const count = () => {
    turns++;
    if (counting) setImmediate(count);
  };
  count();
  return {
    turns: () => turns,
    stop: () => {
      counting = false;
    },
  };
}

/** Runs `fn` from an I/O callback: in the event loop's poll phase, where a webhook's body ends. */
export const inPollPhase = (fn: () => void): Promise<void> =>
  new Promise<void>((resolve, reject) =>
    stat('.', (err) => {
      if (err) return reject(err);
      fn();
      resolve();
    }),
  );

/**
 * A group commit (store/group-commit.ts) as the webhooks' is, on SQLite, when nothing holds the
 * connection: each batch written at once, in the check phase after its items came. It notes
 * `commit <items>` in `order`, beside what the test's background work notes.
 */
export const recordingCommit = (order: string[]) =>
  groupCommit<string, string>(
    () => Promise.reject(new Error('the batch goes at once here, not in tx()')),
    () => Promise.reject(new Error('the batch goes at once here, not item by item')),
    {
      writeManyNow: (items) => {
        order.push(`commit ${items.join(', ')}`);
        return items;
      },
    },
  );
