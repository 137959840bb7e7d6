/**
 * every(pass, intervalMs): runs `pass` on a timer, never two at once. `run()` starts a pass now,
 * or joins the one under way; `stop()` ends the timer and waits for the pass under way. The timer
 * does not keep the process alive. Shared by the pollers that loop on their own (node activity,
 * paging), so each says only what one pass does. A pass the timer started that fails is handed
 * to `onError` (a rejection nobody awaits would end the process: a database outage must not).
 */
export interface Every {
  start(opts?: { now?: boolean }): void;
  stop(): Promise<void>;
  run(): Promise<void>;
}

export function every(pass: () => Promise<void>, intervalMs: number, onError: (err: unknown) => void): Every {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  const run = (): Promise<void> => {
    running ??= pass().finally(() => {
      running = undefined;
    });
    return running;
  };
  return {
    start(opts = {}) {
      if (timer) return;
      const timed = () => void run().catch(onError);
      timer = setInterval(timed, intervalMs);
      timer.unref();
      if (opts.now) timed();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      await running;
    },
    run,
  };
}
