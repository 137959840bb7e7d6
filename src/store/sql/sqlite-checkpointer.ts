/**
 * WAL checkpoints off the event loop. SQLite copies the WAL back into the database file every
 * 1,000 pages by default, inside whichever commit crosses that mark, and with
 * `synchronous = NORMAL` a checkpoint syncs the WAL and the database file: better-sqlite3 is
 * synchronous, so those syncs stopped the event loop for milliseconds on the webhook's
 * request path (measured: batch p99 ~5 ms against ~1 ms without). Here a worker thread with
 * its own connection runs PASSIVE checkpoints (they never block a writer or a reader) every
 * `everyMs`; the bot's connection keeps an automatic checkpoint only as a backstop, at
 * `backstopPages`, in case the worker stops. Durability is unchanged: commits are written as
 * before, and the syncs happen as before, on another thread.
 *
 * A passive checkpoint copies the WAL but cannot start it again from the beginning: only the
 * writer does that, at a transaction that begins with every frame copied. Under commits back to
 * back (intake at its maximum rate) that moment rarely comes, so the WAL grew until the writer's
 * own backstop checkpoint ran, on the event loop, with its two syncs (measured: COMMITs of
 * 6–9 ms, 20–30 ms under the profiler, at the maximum rate and after it). So once the
 * WAL holds `restartAtPages` pages, the worker asks for a pause (`pause`): the writer lets its
 * current transaction end and starts no other (its callers wait, asynchronously; the event loop
 * runs on), while the worker runs a RESTART checkpoint. The next commit then writes the WAL from
 * its beginning. Without `pause` the worker never asks (as before).
 *
 * A RESTART holds the write lock while it copies and syncs, and better-sqlite3 waits for a lock
 * synchronously (busy_timeout, 2 s): a writer that resumed while the checkpoint still ran would
 * stop the event loop until it ended. So the pause lasts until the worker answers; past
 * `boundMs` (2 s) it ends as soon as a write could begin without waiting (`writable`, asked
 * every 100 ms), and past `maxPauseMs` (30 s) in any case, so that a lost answer cannot hold
 * the writer for ever.
 */
import { Worker } from 'node:worker_threads';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** Plain CommonJS for an eval worker (no loader needed, so it runs under tsx and vitest too). */
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
const db = new Database(workerData.path, { fileMustExist: true });
db.pragma('synchronous = NORMAL');
db.pragma('busy_timeout = 0');
let asked = false;
let skip = 0; // passes to let go by after a RESTART that was busy
const checkpoint = () => {
  try {
    const [r] = db.pragma('wal_checkpoint(PASSIVE)');
    if (skip > 0) skip--;
    else if (workerData.restartAtPages && !asked && r.log >= workerData.restartAtPages) {
      asked = true;
      parentPort.postMessage('pause?');
    }
  } catch { /* busy or closing: the next pass does it */ }
};
const timer = setInterval(checkpoint, workerData.everyMs);
parentPort.on('message', (m) => {
  if (m === 'restart') {
    // The writer is paused: nothing holds the write lock, so this copies the rest and makes the next writer start the WAL again.
    if (workerData.holdMs) {
      // For tests only: a checkpoint that holds the write lock this long, as one on a slow disk does.
      try {
        db.exec('BEGIN IMMEDIATE');
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, workerData.holdMs);
        db.exec('COMMIT');
      } catch { /* the RESTART below tries as it would */ }
    }
    let restarted = false;
    try { restarted = db.pragma('wal_checkpoint(RESTART)')[0].busy === 0; } catch { /* the next request tries again */ }
    asked = false;
    if (!restarted) skip = 10;
    parentPort.postMessage('done');
    return;
  }
  clearInterval(timer); checkpoint(); db.close(); parentPort.close();
});
`;

export interface Checkpointer {
  /** Runs a last checkpoint and stops the worker. */
  stop(): Promise<void>;
}

/** The writer's pause: runs `work` while no transaction or statement of the connection runs, and resolves after it. */
export type PauseWriter = (work: () => Promise<void>) => Promise<void>;

export interface CheckpointerOptions {
  everyMs?: number;
  restartAtPages?: number;
  pause?: PauseWriter;
  /** True when a write could begin now without waiting for a lock (asked, during a pause, once it is past `boundMs`). */
  writable?: () => boolean;
  /** Default 2,000 ms. */
  boundMs?: number;
  /** Default 30,000 ms. */
  maxPauseMs?: number;
  /** For tests: each RESTART first holds the write lock this long, as a checkpoint on a slow disk does. */
  holdMs?: number;
}

export function startCheckpointer(path: string, o: CheckpointerOptions = {}): Checkpointer {
  const boundMs = o.boundMs ?? 2_000;
  const maxPauseMs = o.maxPauseMs ?? 30_000;
  const worker = new Worker(WORKER, {
    eval: true,
    workerData: {
      module: require.resolve('better-sqlite3'),
      path,
      everyMs: o.everyMs ?? 100,
      restartAtPages: o.pause ? (o.restartAtPages ?? 4096) : 0,
      holdMs: o.holdMs ?? 0,
    },
    // A small isolate: it holds one connection and a timer.
    resourceLimits: { maxYoungGenerationSizeMb: 1, maxOldGenerationSizeMb: 8 },
  });
  worker.unref();
  let gone = false;
  /** Settles with the worker's answer to 'restart', or when it is gone (or past the bound, once a write would not wait). */
  let answered: (() => void) | undefined;
  const finish = () => {
    answered?.();
    answered = undefined;
  };
  // A failing worker leaves the backstop (the connection's own automatic checkpoint) in charge.
  worker.on('error', () => undefined);
  worker.once('exit', () => {
    gone = true;
    finish();
  });
  worker.on('message', (m: unknown) => {
    if (m === 'pause?' && o.pause && !gone) {
      void o
        .pause(
          () =>
            new Promise<void>((resolve) => {
              if (gone) return resolve();
              const since = Date.now();
              // Past the bound, the writer resumes once it would not wait for the checkpoint's lock.
              const bound = () => {
                let wait = false;
                try {
                  wait = o.writable !== undefined && !o.writable() && Date.now() - since < maxPauseMs;
                } catch {
                  // (A check that fails says nothing: the writer resumes, and its write reports what is wrong.)
                }
                if (wait) t = setTimeout(bound, 100);
                else finish();
              };
              let t = setTimeout(bound, boundMs);
              answered = () => {
                clearTimeout(t);
                resolve();
              };
              worker.postMessage('restart');
            }),
        )
        .catch(() => undefined);
    } else if (m === 'done') {
      finish();
    }
  });
  let stopped: Promise<void> | undefined;
  return {
    stop: () =>
      (stopped ??= new Promise<void>((resolve) => {
        const t = setTimeout(() => void worker.terminate().then(() => resolve()), 2_000);
        worker.once('exit', () => {
          clearTimeout(t);
          resolve();
        });
        worker.postMessage('stop');
      })),
  };
}
