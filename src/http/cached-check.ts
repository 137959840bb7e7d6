/**
 * A readiness check run at most once per `ttlMs`, however many probes ask: a load balancer
 * probing every replica every second must not each time reach the database. Probes that arrive
 * while a check runs share it; a check slower than `timeoutMs` counts as a failure (a probe
 * must answer before the balancer gives up on it), and its late answer is still kept.
 */
export function cachedCheck(
  check: () => Promise<boolean>,
  o: { ttlMs?: number; timeoutMs?: number; now?: () => number } = {},
): () => Promise<boolean> {
  const ttlMs = o.ttlMs ?? 1_000;
  const timeoutMs = o.timeoutMs ?? 2_000;
  const now = o.now ?? Date.now;
  let last: { ok: boolean; at: number } | undefined;
  let running: Promise<boolean> | undefined;
  const run = () =>
    (running ??= check()
      .catch(() => false)
      .then((ok) => {
        last = { ok, at: now() };
        running = undefined;
        return ok;
      }));
  return async () => {
    if (last && now() - last.at < ttlMs) return last.ok;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
      timer.unref();
    });
    try {
      return await Promise.race([run(), late]);
    } finally {
      clearTimeout(timer);
    }
  };
}
