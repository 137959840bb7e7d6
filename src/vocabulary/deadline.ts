/**
 * One deadline that the calls of a piece of work share (issue 27: a command's calls to a node must
 * answer, or say that the node did not, within the time a person in a chat waits). The engine runs
 * each interaction under one; a background path (the activity poller, a report) runs its reads under
 * its own. A client asks `currentDeadline()` before each attempt: it gives an attempt no more than
 * what is left, and starts no retry that the deadline would cut.
 *
 * It follows the async call chain (AsyncLocalStorage), so every call made while the work runs shares
 * it, whoever makes it. When the work ends the deadline closes: something the work started and left
 * running (a follow-up in the background) no longer counts against it. A deadline inside another
 * never reaches past it: a report run from a chat command keeps to the command's.
 * Measured on the monotonic clock, so a test that moves the bot's clock does not move it.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { performance } from 'node:perf_hooks';

export interface Deadline {
  /** Its whole length, in ms (what a message says: "did not answer in 10 s"). */
  readonly ms: number;
  /** What is left of it, in ms; 0 or less once it has passed. */
  left(): number;
}

interface Frame {
  deadline: Deadline;
  open: boolean;
}

const frames = new AsyncLocalStorage<Frame>();

/** Runs `work` under a deadline of `ms` from now (or the one it runs under, when sooner), shared by every call it makes until it ends. */
export async function withDeadline<T>(ms: number, work: () => Promise<T>): Promise<T> {
  const outer = currentDeadline();
  if (outer && outer.left() <= ms) return work();
  const at = performance.now() + ms;
  const frame: Frame = { deadline: { ms, left: () => at - performance.now() }, open: true };
  try {
    return await frames.run(frame, work);
  } finally {
    frame.open = false;
  }
}

/** The deadline the current work runs under, if any (and only while that work runs). */
export function currentDeadline(): Deadline | undefined {
  const frame = frames.getStore();
  return frame?.open ? frame.deadline : undefined;
}

/** `10 s`, `2.5 s`, `300 ms`: a deadline's length as a message says it. */
export function secondsText(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  return `${s >= 10 ? Math.round(s) : Math.round(s * 10) / 10} s`;
}
