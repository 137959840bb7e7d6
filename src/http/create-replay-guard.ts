/**
 * Remembers signed requests already accepted, so a captured request cannot be replayed while its
 * timestamp is still inside the accepted window (the signature check alone allows that). The key
 * is the request's signature: it covers the timestamp and the raw body, so a repeat is the same
 * bytes. With a `store` (the database), what was accepted survives a restart, so a replay to a
 * restarted bot is refused too; expired keys are pruned once per window. Without one (tests,
 * tools) it lives in memory, bounded: the oldest keys are forgotten first at `maxEntries`.
 */
export interface ReplayGuard {
  /** True the first time `key` is seen inside the window; false for a repeat. */
  firstTime(key: string, nowMs: number): Promise<boolean>;
  readonly size: number;
}

/** The persistence a guard may use (the store's createReplayStore). */
export interface ReplayGuardStore {
  /** True only for the first of concurrent calls with one key (one atomic statement). */
  remember(key: string, until: number, now: number): Promise<boolean>;
  prune(now: number): Promise<number>;
}

export function createReplayGuard(opts: {
  windowMs: number;
  maxEntries?: number;
  store?: ReplayGuardStore;
  namespace?: string;
}): ReplayGuard {
  // A timestamp is accepted from windowMs before to windowMs after it: remember for both sides.
  const keepMs = 2 * opts.windowMs;
  const store = opts.store;
  if (store) {
    const prefix = opts.namespace ? `${opts.namespace}:` : '';
    let prunedAt = -Infinity;
    let added = 0;
    return {
      async firstTime(key, nowMs) {
        if (nowMs - prunedAt >= opts.windowMs) {
          prunedAt = nowMs;
          added = 0;
          await store.prune(nowMs);
        }
        const first = await store.remember(prefix + key, nowMs + keepMs, nowMs);
        if (first) added++;
        return first;
      },
      get size() {
        return added;
      },
    };
  }
  const max = opts.maxEntries ?? 50_000;
  const expiry = new Map<string, number>();
  return {
    async firstTime(key, nowMs) {
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
