import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { spawnBot } from '../support/spawn-bot.js';
import { waitFor } from '../support/wait-for.js';
import { niceAbove, threadNices, type Nices } from '../support/thread-nices.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const linux = process.platform === 'linux';
const others = (n: Nices, main: string) => Object.entries(n).filter(([tid]) => tid !== main);

describe.runIf(linux)('the helper threads run below the event loop (cli/helper-threads.ts)', () => {
  it('every thread but the event loop goes to the nice value given, a thread started later at the next look; 0 leaves them be', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', join(root, 'test/support/helper-threads-child.ts')],
      {
        cwd: root,
        env: { ...process.env, NODE_OPTIONS: '' },
        timeout: 60_000,
      },
    );
    const r = JSON.parse(stdout.trim().split('\n').at(-1)!) as {
      main: string;
      base: number;
      nice: number;
      offLowered: number;
      afterOff: Nices;
      lowered: number[];
      afterLook: Nices;
      beforeSecondLook: Nices;
      loweredLater: number[];
      afterSecondLook: Nices;
    };
    // 0: nothing lowered (every thread at the process's own nice value, 0 unless the tests run under `nice`).
    expect(r.nice).toBeGreaterThan(r.base);
    expect(r.offLowered).toBe(0);
    expect(Object.values(r.afterOff).every((n) => n === r.base)).toBe(true);
    // A look: V8's threads and the worker's all at the value asked, the event loop's where it was.
    expect(others(r.afterLook, r.main).length).toBeGreaterThanOrEqual(3);
    expect(others(r.afterLook, r.main).map(([, n]) => n)).toEqual(others(r.afterLook, r.main).map(() => r.nice));
    expect(r.afterLook[r.main]).toBe(r.base);
    expect(r.lowered.map(String).sort()).toEqual(
      others(r.afterLook, r.main)
        .map(([tid]) => tid)
        .sort(),
    );
    // A worker started after it inherits the event loop's priority, until the next look.
    const started = Object.keys(r.beforeSecondLook).filter((tid) => !(tid in r.afterLook));
    expect(started.length).toBeGreaterThan(0);
    expect(started.map((tid) => r.beforeSecondLook[tid])).toEqual(started.map(() => r.base));
    expect(r.loweredLater.map(String).sort()).toEqual(started.filter((tid) => tid in r.afterSecondLook).sort());
    expect(others(r.afterSecondLook, r.main).every(([, n]) => n === r.nice)).toBe(true);
    expect(r.afterSecondLook[r.main]).toBe(r.base);
  }, 90_000);

  it('the bot started as a process lowers its helper threads once it is ready', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rln-nice-'));
    const base = os.getPriority();
    const nice = niceAbove(base);
    const bot = spawnBot(['start'], {
      cwd: dir,
      env: { PORT: '0', DATABASE_PATH: join(dir, 'bot.db'), HELPER_THREADS_NICE: String(nice) },
    });
    try {
      await bot.waitFor(/HTTP server: http:\/\/\S+/);
      const main = String(bot.child.pid);
      // The banner comes as the server listens; the threads are lowered when the start has ended.
      const lowered = () => others(threadNices(bot.child.pid!), main).every(([, v]) => v === nice);
      await waitFor(() => lowered() || undefined, {
        timeout: 60_000,
        what: () => `every helper thread at nice ${nice}: ${JSON.stringify(threadNices(bot.child.pid!))}`,
      });
      const n = threadNices(bot.child.pid!);
      expect(n[main]).toBe(base);
      expect(others(n, main).length).toBeGreaterThanOrEqual(3);
      expect(others(n, main).filter(([, v]) => v !== nice)).toEqual([]);
    } finally {
      bot.child.kill('SIGTERM');
      await bot.exited;
    }
  }, 150_000);
});
