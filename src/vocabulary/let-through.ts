/**
 * Lets the event loop through before background work (routing, an outbox round's reads and
 * writes, planning) goes on with its next piece, and puts that piece behind the webhook commits
 * already waiting.
 *
 * A webhook's batch is committed in a `setImmediate` (store/group-commit.ts), queued while its
 * request is read, in the loop's poll phase; its 2xx follows the commit. Resumed by
 * `setImmediate` too, a background piece queued earlier ran first in the same check phase, and
 * every batch behind it waited for it: up to a few milliseconds of SQLite at a time. Resumed by
 * a timer, it runs in the next turn's timers phase, after that turn's commits. Measured, routed
 * at a steady 1,000 events/s, five alternating pairs: the p99 of the 2xx 20.7–28.2 ms against
 * 26.4–39.0 (medians 24.9 and 34.8), with no more CPU per event (docs/benchmarks.md,
 * 2026-11-28). That is a warm bot: in its first seconds a bot is slow for other reasons, and
 * there it changed nothing. A timer waits at least a millisecond, so an idle bot's background
 * work goes slower by that per piece; a piece is 50 events routed or 250 rows read.
 *
 * A timer alone did not always let the loop through. On Node 20 (libuv 1.46) two pieces that
 * hold the loop in turn can resume one another's timers in one timers phase, turn after turn
 * of their own, with no poll or check phase between, and requests and commits wait behind the
 * whole chain. Measured: two pieces of 0.3 and 0.7 ms, a third of their resumptions came in the
 * turn of their pause; two of 1.2 ms (the test), every one of them. So the timer is set from an
 * immediate: the piece resumes only after the loop has polled and run its check phase (the
 * commits queued by then) at least once since it paused. The immediate is queued before that
 * poll's commits, and only sets the timer.
 */
export const letThrough = (): Promise<void> => new Promise((r) => setImmediate(() => setTimeout(r, 0)));
