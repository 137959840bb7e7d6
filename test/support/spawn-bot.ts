/**
 * Runs the real CLI as a child process (with tsx's loader, as `npm start` does), with only the
 * environment given: what a newcomer or an operator gets. The child is the bot itself, not tsx's
 * CLI in front of it, so a SIGKILL kills the bot (tsx's CLI relays SIGTERM but cannot relay a
 * SIGKILL, which left the bot running after the test).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { waitFor } from './wait-for.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const tsxPreflight = fileURLToPath(new URL('../../node_modules/tsx/dist/preflight.cjs', import.meta.url));
const tsxLoader = new URL('../../node_modules/tsx/dist/loader.mjs', import.meta.url).href;

export interface SpawnedBot {
  child: ChildProcessWithoutNullStreams;
  stdout(): string;
  stderr(): string;
  /** Resolves when stdout has matched `re` (rejects after `ms`). */
  waitFor(re: RegExp, ms?: number): Promise<string>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function spawnBot(args: string[], opts: { env?: Record<string, string>; cwd?: string } = {}): SpawnedBot {
  const child = spawn(process.execPath, ['--require', tsxPreflight, '--import', tsxLoader, `${root}src/cli/main.ts`, ...args], {
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
    waitFor(re, ms = 90_000) {
      return waitFor(() => out.match(re)?.[0], { timeout: ms, what: () => `${re}; stdout:\n${out}\nstderr:\n${err.slice(-2000)}` });
    },
  };
}
