/**
 * Runs the real CLI as a child process (through tsx, as `npm start` does), with only the
 * environment given: what a newcomer or an operator gets.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { waitFor } from './wait-for.js';

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
  child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
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
      return waitFor(() => out.match(re)?.[0], { timeout: ms, what: () => `${re}; stdout:\n${out}\nstderr:\n${err.slice(-2000)}` });
    },
  };
}
