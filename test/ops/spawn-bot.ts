/**
 * Runs the real CLI as a child process (through tsx, as `npm start` does), with only the
 * environment given: what a newcomer or an operator gets.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const tsxCli = fileURLToPath(new URL('../../node_modules/tsx/dist/cli.mjs', import.meta.url));

export interface SpawnedBot {
  child: ChildProcessWithoutNullStreams;
  stdout(): string;
  stderr(): string;
  /** Resolves when stdout has matched `re` (rejects after `ms`). */
  waitFor(re: RegExp, ms?: number): Promise<string>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function spawnBot(args: string[], opts: { env?: Record<string, string>; cwd?: string } = {}): SpawnedBot {
  const child = spawn(process.execPath, [tsxCli, `${root}src/cli.ts`, ...args], {
    cwd: opts.cwd ?? root,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...opts.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const waiters: Array<{ re: RegExp; resolve: (s: string) => void }> = [];
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString('utf8');
    for (const w of [...waiters]) {
      const m = out.match(w.re);
      if (m) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(m[0]);
      }
    }
  });
  child.stderr.on('data', (d: Buffer) => (err += d.toString('utf8')));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitFor(re, ms = 20_000) {
      const m = out.match(re);
      if (m) return Promise.resolve(m[0]);
      return new Promise((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`timed out waiting for ${re}; stdout:\n${out}\nstderr:\n${err.slice(-2000)}`)), ms);
        waiters.push({ re, resolve: (s) => (clearTimeout(t), resolve(s)) });
      });
    },
  };
}
