/** Waiting for something only so long: the chat platforms answer within a few seconds or not at all. */

/** What `within` gives when the promise has not settled in time. */
export const LATE = Symbol('late');

/** `p`'s value, or LATE when it has not settled within `ms` (a rejection within `ms` rejects). The timer is always cleared. */
export async function within<T>(p: Promise<T>, ms: number): Promise<T | typeof LATE> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([p, new Promise<typeof LATE>((r) => (timer = setTimeout(() => r(LATE), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * `call()`'s outcome, waited for however long it takes; `onSlow` runs once if it has not settled
 * after `afterMs` (a platform's post still unanswered is logged, not given up on). The timer never
 * keeps the process alive and is always cleared.
 */
export async function watchSlow<T>(call: () => Promise<T>, afterMs: number, onSlow?: () => void): Promise<T> {
  const slow = onSlow ? setTimeout(onSlow, afterMs) : undefined;
  slow?.unref?.();
  try {
    return await call();
  } finally {
    clearTimeout(slow);
  }
}

/** Resolves after `ms` (the one sleep of the project; vitest's fake timers drive it in unit tests). */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
