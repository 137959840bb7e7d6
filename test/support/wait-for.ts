/**
 * The one polling helper of the tests, on vitest's `vi.waitFor`: calls `fn` until it returns a
 * truthy value and resolves with that value. When `fn` throws, the wait fails at once with that
 * error (a broken check is not retried into a timeout); when time runs out, it fails with a
 * message naming `what`.
 */
import { vi } from 'vitest';

export interface WaitForOptions {
  /**
   * How long to keep trying, in ms: at least 30 000 (the default). The wait ends as soon as the
   * condition holds; the bound only stops a wait for something that never comes, and on a busy
   * machine a shorter one failed tests that were right.
   */
  timeout?: number;
  /** What is awaited, for the failure message; a function is read only when the wait fails (e.g. to show a transcript). */
  what?: string | (() => string);
  /** Pause between tries, in ms (default 10). */
  interval?: number;
}

const MIN_TIMEOUT_MS = 30_000;

type Falsy = undefined | null | false | 0 | '';

export async function waitFor<T>(fn: () => T | Falsy | Promise<T | Falsy>, opts: WaitForOptions = {}): Promise<T> {
  const { interval = 10, what = 'a condition' } = opts;
  const timeout = Math.max(opts.timeout ?? 0, MIN_TIMEOUT_MS);
  let thrown: { error: unknown } | undefined;
  const NOT_YET = new Error('not yet');
  const value = await vi
    .waitFor(
      async () => {
        let v: T | Falsy;
        try {
          v = await fn();
        } catch (error) {
          thrown = { error };
          return undefined;
        }
        if (!v) throw NOT_YET;
        return v;
      },
      { timeout, interval },
    )
    .catch(() => {
      throw new Error(`timed out after ${timeout} ms waiting for ${typeof what === 'function' ? what() : what}`);
    });
  if (thrown) throw thrown.error instanceof Error ? thrown.error : new Error(String(thrown.error));
  return value as T;
}
