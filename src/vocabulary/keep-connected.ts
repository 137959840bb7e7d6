/**
 * keepConnected: keeps one connection to a chat platform (Discord's gateway, Slack's Socket Mode)
 * up without holding the rest of the bot hostage to it (issue 27, item 4).
 *
 * - start() makes the first attempt. A failure retrying cannot fix (a refused token: `isFatal`) is
 *   thrown, as a configuration problem. Any other failure (the platform unreachable, a 5xx, a
 *   timeout) leaves the link `down` and start() resolves: the bot serves its other platforms,
 *   webhooks and /healthz meanwhile, and the link tries again with back-off (1 s, doubling, up to
 *   60 s, with jitter) until it connects.
 * - Once up, the connection reports a drop (`lost`) and a recovery by its own library
 *   (`regained`). A link still down `graceMs` after a drop closes what is left and reconnects
 *   itself, with the same back-off.
 * - status() says where the link is, for /healthz.
 */

export type LinkState = 'connecting' | 'up' | 'down' | 'stopped';

export interface LinkStatus {
  state: LinkState;
  /** When the state began (ms since the epoch). */
  since: number;
  /** Why it is down: the last failure, in words (never a secret). */
  reason?: string;
  /** Failed attempts since it was last up. */
  failures: number;
  /** When the next attempt runs, while down. */
  retryAt?: number;
}

/** What a connection tells its link once it is up. */
export interface LinkEvents {
  lost(reason: string): void;
  regained(): void;
}

export interface Link {
  /** The first attempt; resolves up or down, or after `startWaitMs` still connecting. Throws only a fatal failure. */
  start(): Promise<void>;
  stop(): Promise<void>;
  status(): LinkStatus;
}

export interface KeepConnectedOptions {
  /** Opens the connection; resolves once it is usable. Ends early (rejects) when `signal` aborts. */
  connect(events: LinkEvents, signal: AbortSignal): Promise<void>;
  /** Closes whatever connect opened, including a half-open one. */
  disconnect(): Promise<void>;
  /** A failure no retry can fix (a refused token). Default: none. */
  isFatal?(err: unknown): boolean;
  firstDelayMs?: number;
  maxDelayMs?: number;
  /** How long a dropped connection is left to its own library to recover (default 30 s; 0: reconnect at once). */
  graceMs?: number;
  /** How long start() waits for the first attempt (default 15 s); the attempt goes on after it. */
  startWaitMs?: number;
  /** Told every change of state, with the failure behind it (for the log). */
  onChange?(status: LinkStatus, err?: unknown): void;
  now?: () => number;
  random?: () => number;
}

const reasonOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

export function keepConnected(o: KeepConnectedOptions): Link {
  const now = o.now ?? Date.now;
  const random = o.random ?? Math.random;
  const firstDelayMs = o.firstDelayMs ?? 1_000;
  const maxDelayMs = o.maxDelayMs ?? 60_000;
  const graceMs = o.graceMs ?? 30_000;
  let status: LinkStatus = { state: 'stopped', since: now(), failures: 0 };
  let timer: NodeJS.Timeout | undefined;
  let abort: AbortController | undefined;
  let attempt: Promise<void> | undefined;
  /** Bumped by every attempt and by stop(): events of an older connection are ignored. */
  let generation = 0;
  /** While start() waits for the first attempt: a fatal failure then is thrown from start(). */
  let starting = false;

  const set = (next: Omit<LinkStatus, 'since'> & { since?: number }, err?: unknown) => {
    status = { since: next.since ?? now(), ...next };
    o.onChange?.(status, err);
  };
  const clearTimer = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
  };
  const schedule = (delayMs: number) => {
    clearTimer();
    timer = setTimeout(() => {
      timer = undefined;
      void run();
    }, delayMs);
    timer.unref();
    return now() + delayMs;
  };
  /** 1 s, 2 s, 4 s … up to the maximum, each ±20 %. */
  const backoff = (failures: number) => {
    const base = Math.min(maxDelayMs, firstDelayMs * 2 ** Math.max(0, failures - 1));
    return Math.round(base * (0.8 + 0.4 * random()));
  };

  const events = (gen: number): LinkEvents => ({
    lost(reason) {
      if (gen !== generation || status.state !== 'up') return;
      set({ state: 'down', reason, failures: 0 });
      // Its library may resume it; if not within the grace, the link reconnects itself.
      clearTimer();
      timer = setTimeout(() => {
        timer = undefined;
        if (gen !== generation || status.state !== 'down') return;
        void o
          .disconnect()
          .catch(() => undefined)
          .then(() => run());
      }, graceMs);
      timer.unref();
    },
    regained() {
      if (gen !== generation || status.state !== 'down') return;
      clearTimer();
      set({ state: 'up', failures: 0 });
    },
  });

  /** One attempt; throws only what start() must throw (a fatal failure on the first attempt). */
  const run = (): Promise<void> => {
    const gen = ++generation;
    const controller = new AbortController();
    abort = controller;
    if (status.state !== 'down') set({ state: 'connecting', failures: status.failures });
    attempt = (async () => {
      try {
        await o.connect(events(gen), controller.signal);
        if (gen !== generation) return void (await o.disconnect().catch(() => undefined));
        set({ state: 'up', failures: 0 });
      } catch (err) {
        if (gen !== generation) return;
        await o.disconnect().catch(() => undefined);
        const fatal = o.isFatal?.(err) ?? false;
        if (fatal && starting) {
          set({ state: 'stopped', reason: reasonOf(err), failures: status.failures + 1 }, err);
          throw err;
        }
        const failures = status.failures + 1;
        // A refusal after start (a token revoked meanwhile) is retried too, at the slowest pace.
        const retryAt = schedule(fatal ? maxDelayMs : backoff(failures));
        set({ state: 'down', reason: reasonOf(err), failures, retryAt, since: status.state === 'down' ? status.since : now() }, err);
      }
    })();
    return attempt;
  };

  return {
    async start() {
      if (status.state !== 'stopped') return;
      starting = true;
      const first = run();
      let wait: NodeJS.Timeout | undefined;
      await Promise.race([
        first,
        new Promise<void>((resolve) => {
          wait = setTimeout(resolve, o.startWaitMs ?? 15_000);
          wait.unref();
        }),
      ]).finally(() => {
        clearTimeout(wait);
        starting = false;
      });
      // Past the wait, a fatal failure can no longer stop the start: it is logged as the link goes down.
      void first.catch(() => undefined);
    },
    async stop() {
      generation++;
      clearTimer();
      abort?.abort();
      const pending = attempt;
      set({ state: 'stopped', failures: 0 });
      await pending?.catch(() => undefined);
      await o.disconnect().catch(() => undefined);
    },
    status: () => status,
  };
}
