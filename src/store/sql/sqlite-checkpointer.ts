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
const checkpoint = () => { try { db.pragma('wal_checkpoint(PASSIVE)'); } catch { /* busy or closing: the next pass does it */ } };
const timer = setInterval(checkpoint, workerData.everyMs);
parentPort.on('message', () => { clearInterval(timer); checkpoint(); db.close(); parentPort.close(); });
`;

export interface Checkpointer {
  /** Runs a last checkpoint and stops the worker. */
  stop(): Promise<void>;
}

export function startCheckpointer(path: string, o: { everyMs?: number } = {}): Checkpointer {
  const worker = new Worker(WORKER, {
    eval: true,
    workerData: { module: require.resolve('better-sqlite3'), path, everyMs: o.everyMs ?? 100 },
    // A small isolate: it holds one connection and a timer.
    resourceLimits: { maxYoungGenerationSizeMb: 1, maxOldGenerationSizeMb: 8 },
  });
  worker.unref();
  // A failing worker leaves the backstop (the connection's own automatic checkpoint) in charge.
  worker.on('error', () => undefined);
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
