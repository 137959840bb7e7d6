/**
 * Remembers signed requests already accepted, so a captured request cannot be replayed while its
 * timestamp is still inside the accepted window (the signature check alone allows that). The key
 * is the request's signature: it covers the timestamp and the raw body, so a repeat is the same
 * bytes. Bounded: the oldest keys are forgotten first when `maxEntries` is reached.
 */
export interface ReplayGuard {
  /** True the first time `key` is seen inside the window; false for a repeat. */
  firstTime(key: string, nowMs: number): boolean;
  readonly size: number;
}

export function createReplayGuard(opts: { windowMs: number; maxEntries?: number }): ReplayGuard {
  const max = opts.maxEntries ?? 50_000;
  // A timestamp is accepted from windowMs before to windowMs after it: remember for both sides.
  const keepMs = 2 * opts.windowMs;
  const expiry = new Map<string, number>();
  return {
    firstTime(key, nowMs) {
      for (const [k, until] of expiry) {
        if (until > nowMs && expiry.size < max) break;
        expiry.delete(k);
      }
      const until = expiry.get(key);
      if (until !== undefined && until > nowMs) return false;
      expiry.set(key, nowMs + keepMs);
      return true;
    },
    get size() {
      return expiry.size;
    },
  };
}
