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
