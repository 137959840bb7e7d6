/**
 * Run as a child process by test/cli/helper-threads.test.ts: lowers its own helper threads and
 * prints, as one JSON line, each thread's nice value (read back from /proc) after each step.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { lowerHelperThreads, startHelperThreadPriority } from '../../src/cli/helper-threads.js';

/** Each thread's nice value, from /proc/self/task/<tid>/stat (field 19; fields after the name's ')' start at 3). */
const nices = (): Record<string, number> =>
  Object.fromEntries(
    readdirSync('/proc/self/task').map((tid) => {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      return [tid, Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])];
    }),
  );

/** A worker thread that stays until terminated, once it runs. */
const worker = async (): Promise<Worker> => {
  const w = new Worker('require("node:worker_threads").parentPort.postMessage("up"); setInterval(() => {}, 1000);', { eval: true });
  await new Promise((r) => w.once('message', r));
  return w;
};

const first = await worker();
const off = startHelperThreadPriority({ nice: 0 });
off.stop();
const afterOff = nices();
const lowered = lowerHelperThreads({ nice: 10 });
const afterLook = nices();
const second = await worker();
const beforeSecondLook = nices();
const loweredLater = lowerHelperThreads({ nice: 10 });
const afterSecondLook = nices();
await Promise.all([first.terminate(), second.terminate()]);
process.stdout.write(
  `${JSON.stringify({ main: String(process.pid), offLowered: off.lowered, afterOff, lowered, afterLook, beforeSecondLook, loweredLater, afterSecondLook })}\n`,
);
