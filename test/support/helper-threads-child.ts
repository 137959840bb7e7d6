/**
 * Run as a child process by test/cli/helper-threads.test.ts: lowers its own helper threads and
 * prints, as one JSON line, each thread's nice value (read back from /proc) after each step.
 * The nice value asked is above the process's own (niceAbove: the tests may run under `nice`).
 */
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { lowerHelperThreads, startHelperThreadPriority } from '../../src/cli/helper-threads.js';
import { niceAbove, threadNices } from './thread-nices.js';

/** A worker thread that stays until terminated, once it runs. */
const worker = async (): Promise<Worker> => {
  const w = new Worker('require("node:worker_threads").parentPort.postMessage("up"); setInterval(() => {}, 1000);', { eval: true });
  await new Promise((r) => w.once('message', r));
  return w;
};

const base = os.getPriority();
const nice = niceAbove(base);
const first = await worker();
const off = startHelperThreadPriority({ nice: 0 });
off.stop();
const afterOff = threadNices('self');
const lowered = lowerHelperThreads({ nice });
const afterLook = threadNices('self');
const second = await worker();
const beforeSecondLook = threadNices('self');
const loweredLater = lowerHelperThreads({ nice });
const afterSecondLook = threadNices('self');
await Promise.all([first.terminate(), second.terminate()]);
process.stdout.write(
  `${JSON.stringify({ main: String(process.pid), base, nice, offLowered: off.lowered, afterOff, lowered, afterLook, beforeSecondLook, loweredLater, afterSecondLook })}\n`,
);
