/**
 * At most `max` of one node's API calls in flight at once, within one poll of it. A poll asks a
 * node for its lists together (channels, payments, transactions, assets), then each asset's
 * transfers (up to MAX_ASSETS_PER_POLL) and what its watch kinds need: unbounded, one node with
 * twenty assets took twenty-odd calls at once. The bound is the call scheduler's per-node one
 * (NODE_CALLS_PER_NODE, default 4); the poller keeps its own pacing across nodes, so its polls do
 * not queue behind reports in the scheduler's shared limit.
 */

/** `api` with each of its methods waiting for one of `max` turns: the calls past the bound wait, in order. */
export function boundCalls<T extends object>(api: T, max: number): T {
  const limit = Math.max(1, Math.floor(max));
  let running = 0;
  const waiting: Array<() => void> = [];
  const acquire = (): Promise<void> | undefined => {
    if (running < limit) {
      running++;
      return undefined;
    }
    return new Promise<void>((resolve) => waiting.push(resolve));
  };
  // A turn that ends goes straight to the next call waiting (so none can slip in between), or is freed.
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else running--;
  };
  return new Proxy(api, {
    get(target, prop) {
      // Read with the target as `this`: a method the client makes on first use (a getter) must
      // close over the client itself, not this wrapper, or its own inner calls would each wait
      // for a second turn, and four such calls at once would wait for each other for ever.
      const value: unknown = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        await acquire();
        try {
          return await (value as (...a: unknown[]) => unknown).apply(target, args);
        } finally {
          release();
        }
      };
    },
  });
}
