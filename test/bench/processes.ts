/**
 * The intake benchmark's processes, each apart from the others:
 * - the bot, compiled with tsc and started as the Dockerfile starts it (`node <its flags> dist/src/cli/main.js start`,
 *   with its malloc settings: see deployedStart);
 * - the bare verify-and-parse baseline (baseline-webhook-server.ts run as a script), and the bare
 *   durable receiver (durable-webhook-server.ts: the same, plus the SQLite commit the bot's 2xx promises);
 * - the load generator (load-process.ts), driven over IPC.
 * On a machine with two cores or more, the servers are pinned to core 0 and the load
 * generator to core 1 with `taskset` (when it is installed), so they do not take turns.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { openSync, closeSync, readFileSync, readdirSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import type { LoadResult } from './load.js';

export const root = fileURLToPath(new URL('../../', import.meta.url));
const tsx = `${root}node_modules/tsx/dist/cli.mjs`;

const hasTaskset = spawnSync('taskset', ['-V'], { stdio: 'ignore' }).status === 0;
/** Core 0 for the servers, core 1 for the load generator; none when there is one core or no taskset. */
export const pinning = hasTaskset && os.cpus().length >= 2 ? { server: '0', load: '1' } : undefined;

/** Moves this process (the service emulator and the fake Slack) onto the load generator's core. */
export function pinSelf(): void {
  if (pinning) spawnSync('taskset', ['-a', '-pc', pinning.load, String(process.pid)], { stdio: 'ignore' });
}

/** `node args` (under `taskset -c core` when pinning), with the environment given. */
function spawnNode(
  args: string[],
  opts: { core?: string; env?: NodeJS.ProcessEnv; stdio: Parameters<typeof spawn>[2]['stdio'] },
): ChildProcess {
  const [cmd, argv] = opts.core ? ['taskset', ['-c', opts.core, process.execPath, ...args]] : [process.execPath, args];
  return spawn(cmd, argv, { cwd: root, env: opts.env ?? process.env, stdio: opts.stdio });
}

export function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(status.match(/VmRSS:\s+(\d+)/)?.[1] ?? NaN) / 1024;
}

export async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as { port: number };
  await new Promise((r) => srv.close(r));
  return port;
}

function exited(child: ChildProcess, ms: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const t = setTimeout(() => {
      child.kill('SIGKILL');
      resolve();
    }, ms);
    child.once('exit', () => {
      clearTimeout(t);
      resolve();
    });
  });
}

/** Compiles the bot as the Docker image's build stage does (`npm run build`). */
export function buildBot(): void {
  const r = spawnSync(process.execPath, [`${root}node_modules/typescript/bin/tsc`, '-p', 'tsconfig.build.json'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (r.status !== 0) throw new Error('npm run build failed: the bot cannot be benchmarked as deployed');
}

export interface BotProcess {
  url: string;
  pid: number;
  rssMiB(): number;
  /** SIGTERM, as `docker stop` sends; the bot drains and exits (a CPU profile is written then). */
  close(): Promise<void>;
}

/**
 * How the Dockerfile starts the bot: the node flags of its CMD (those before dist/src/cli/main.js)
 * and the glibc malloc settings of its ENV (MALLOC_ARENA_MAX, MALLOC_TRIM_THRESHOLD_). Read from
 * the Dockerfile itself, so the benchmarks run the bot as it is deployed and cannot drift from it.
 */
export function deployedStart(): { nodeArgs: string[]; env: Record<string, string> } {
  const text = readFileSync(`${root}Dockerfile`, 'utf8');
  const cmd = text.match(/^CMD (\[.*\])\s*$/m);
  const argv = cmd ? (JSON.parse(cmd[1]) as string[]) : [];
  const at = argv.indexOf('dist/src/cli/main.js');
  if (argv[0] !== 'node' || at < 0)
    throw new Error('the Dockerfile has no CMD ["node", ..., "dist/src/cli/main.js", "start"] to start the bot as deployed');
  // glibc's settings (MALLOC_ARENA_MAX, MALLOC_TRIM_THRESHOLD_) where they are set, not where a comment names them.
  const set = text.split('\n').filter((line) => !line.trimStart().startsWith('#'));
  const env = Object.fromEntries(set.flatMap((line) => [...line.matchAll(/\b(MALLOC_[A-Z_]+)=(\S+)/g)]).map((m) => [m[1], m[2]]));
  return { nodeArgs: argv.slice(1, at), env };
}

/** `BENCH_BOT_ENV='NODE_CALLS_MAX=32 HELPER_THREADS_NICE=0'`: settings of the bot to compare, over the bench's own. */
function benchBotEnv(): Record<string, string> {
  return Object.fromEntries((process.env.BENCH_BOT_ENV?.split(/\s+/).filter(Boolean) ?? []).map((kv) => kv.split(/=(.*)/s, 2)));
}

/**
 * `node <the Dockerfile's flags> dist/src/cli/main.js start` (with its malloc settings), its logs
 * into `logFile`; resolves once /healthz answers 200. `asDeployed: false` leaves out the
 * Dockerfile's flags and environment (to compare them); `cli` starts another compiled tree.
 * `BENCH_BOT_ENV` (benchBotEnv) comes last.
 */
export async function startBotProcess(opts: {
  env: Record<string, string>;
  logFile: string;
  nodeArgs?: string[];
  cli?: string;
  asDeployed?: boolean;
}): Promise<BotProcess> {
  const port = await freePort();
  const deployed = opts.asDeployed === false ? { nodeArgs: [], env: {} } : deployedStart();
  const fd = openSync(opts.logFile, 'a');
  const child = spawnNode([...deployed.nodeArgs, ...(opts.nodeArgs ?? []), opts.cli ?? `${root}dist/src/cli/main.js`, 'start'], {
    core: pinning?.server,
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      PORT: String(port),
      ...deployed.env,
      ...opts.env,
      ...benchBotEnv(),
    },
    stdio: ['ignore', fd, fd],
  });
  closeSync(fd);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 90_000; // generous: a shared machine under load starts slowly
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the bot exited with ${child.exitCode}; see ${opts.logFile}`);
    const ok = await fetch(`${url}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the bot was not ready in 90 s; see ${opts.logFile}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    pid: child.pid!,
    rssMiB: () => rssMiB(child.pid!),
    close: async () => {
      child.kill('SIGTERM');
      await exited(child, 15_000);
    },
  };
}

/** The receivers' scripts (in test/bench/), by kind. */
export const BASELINE_SCRIPTS = {
  bare: 'baseline-webhook-server.ts',
  durable: 'durable-webhook-server.ts',
  'bot-intake': 'bot-intake-server.ts',
} as const;
export type ReceiverKind = keyof typeof BASELINE_SCRIPTS;
export const isReceiverKind = (s: string): s is ReceiverKind => Object.hasOwn(BASELINE_SCRIPTS, s);
/** Where a receiver takes events: the bare and durable ones at any path, the bot's intake at its own route. */
export const receiverPath = (kind: ReceiverKind): string => (kind === 'bot-intake' ? '/webhooks/service' : '/');

export interface BaselineProcess {
  url: string;
  pid: number;
  close(): Promise<void>;
}

/**
 * The URL a child process prints once it listens (`listening on http://…`), as the receivers,
 * the emulator and the bot's intake do; rejected with `failure(what it said)` after `ms`.
 */
export function listeningUrl(child: ChildProcess, ms: number, failure: (said: string) => string): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let said = '';
    const t = setTimeout(() => reject(new Error(failure(said))), ms);
    child.stdout!.on('data', (d: Buffer) => {
      said += d.toString();
      const m = said.match(/listening on (http:\/\/\S+)/);
      if (m) {
        clearTimeout(t);
        resolve(m[1]);
      }
    });
  });
}

/**
 * A baseline server in its own process, on the bot's core, with the account's public key: the bare
 * verify-and-parse server (`bare`, baseline-webhook-server.ts), the bare durable receiver
 * (`durable`, durable-webhook-server.ts), or the bot's own intake alone (`bot-intake`,
 * bot-intake-server.ts: the compiled bot's).
 */
export async function startBaselineProcess(
  publicKeyPem: string,
  kind: ReceiverKind = 'bare',
  nodeArgs: string[] = [],
): Promise<BaselineProcess> {
  const script = `${root}test/bench/${BASELINE_SCRIPTS[kind]}`;
  // tsx's CLI runs the script in a child process: node flags (a profile) need tsx as a loader in this one.
  const args = nodeArgs.length ? [...nodeArgs, '--import', 'tsx', script] : [tsx, script];
  const child = spawnNode(args, {
    core: pinning?.server,
    env: { ...process.env, BASELINE_PUBLIC_KEY: publicKeyPem },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await listeningUrl(child, 20_000, (said) => `the ${kind} baseline did not start: ${said}`);
  return {
    url,
    pid: child.pid!,
    close: async () => {
      child.kill('SIGTERM');
      await exited(child, 5_000);
    },
  };
}

/** A request the load generator sends: signed by the service's key before any clock starts. */
export interface SignedRequest {
  path: string;
  body: string;
  signature: string;
}

/** One URL, or several (replicas): then request i goes to `url[i % n]`, round robin. */
export type LoadCommand =
  | { kind: 'closed'; url: string | string[]; requests: SignedRequest[]; concurrency: number }
  | { kind: 'open'; url: string | string[]; requests: SignedRequest[]; rate: number };

export interface LoadProcess {
  /** One run at a time: the answer is the next message, so do not overlap runs. */
  run(cmd: LoadCommand): Promise<LoadResult>;
  close(): Promise<void>;
}

/** The load generator in its own process; each run's requests reach it before its clock starts. */
export async function startLoadProcess(): Promise<LoadProcess> {
  const child = spawnNode([tsx, `${root}test/bench/load-process.ts`], {
    core: pinning?.load,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  await new Promise<void>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error('the load generator did not start in 20 s')), 20_000);
    child.once('message', () => {
      clearTimeout(t);
      resolve();
    });
  });
  return {
    run: (cmd) =>
      new Promise<LoadResult>((resolve, reject) => {
        const onExit = () => reject(new Error('the load generator exited'));
        child.once('exit', onExit);
        child.once('message', (m) => {
          child.off('exit', onExit);
          const r = m as { result?: LoadResult; error?: string };
          if (r.result) resolve(r.result);
          else reject(new Error(r.error ?? 'the load generator failed'));
        });
        child.send(cmd);
      }),
    close: async () => {
      child.disconnect();
      await exited(child, 5_000);
    },
  };
}

/** The fields of /proc/<pid>/stat after the command name (state is [0], ppid [1], utime [11], stime [12]). */
export const statOf = (pid: number): string[] => statFields(`/proc/${pid}/stat`);

/** The fields of a /proc stat file (a process's, or one of its threads') after the command name. */
function statFields(file: string): string[] {
  const f = readFileSync(file, 'utf8');
  return f.slice(f.lastIndexOf(')') + 2).split(' ');
}

/** The process and its descendants (tsx runs a script in a child node process). */
export function procTree(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const ppid = Number(statOf(Number(d))[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(d)]);
    } catch {
      // gone meanwhile
    }
  }
  const out = [pid];
  for (let i = 0; i < out.length; i++) out.push(...(children.get(out[i]) ?? []));
  return out;
}

/** utime + stime of a process and its descendants (all their threads), in ms (clock ticks are 1/100 s). */
export function cpuMs(pid: number): number {
  return cpuTimes(pid).all;
}

/**
 * The same (`all`), and of their main threads alone (`main`: each process's event loop), read
 * in one walk of the tree: what is left of `all` is the other threads' (V8's garbage-collection
 * and compiler helpers, the checkpoint worker, libuv's pool).
 */
export function cpuTimes(pid: number): { all: number; main: number } {
  let all = 0;
  let main = 0;
  for (const p of procTree(pid)) {
    all += ticksMs(`/proc/${p}/stat`);
    main += ticksMs(`/proc/${p}/task/${p}/stat`);
  }
  return { all, main };
}

/** utime + stime in ms from a /proc stat file; 0 when it is gone meanwhile. */
function ticksMs(file: string): number {
  try {
    const fields = statFields(file);
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
}

/**
 * Resolves once the process has used under 2% of a core (`cpuMsPerS`) over a second and, with `url`, its
 * outbox is empty (`outbox_depth` 0 on its /metrics: a paced drain can spend less than that per
 * second while rows still wait), or after `maxS` seconds. Runs start from a quiet bot, so one
 * run's after-work is not charged to the next run, nor to the baseline running beside it.
 */
export async function untilQuiet(pid: number, url?: string, opts: { maxS?: number; cpuMsPerS?: number } = {}): Promise<void> {
  const { maxS = 120, cpuMsPerS = 20 } = opts;
  for (let last = cpuMs(pid), i = 0; i < maxS; i++) {
    await new Promise((r) => setTimeout(r, 1000));
    const now = cpuMs(pid);
    if (now - last < cpuMsPerS && (!url || (await outboxDepth(url)) === 0)) return;
    last = now;
  }
}

/** The bot's own count of rows waiting in its outbox (its /metrics). */
async function outboxDepth(url: string): Promise<number> {
  const text = await fetch(`${url}/metrics`).then(
    (r) => r.text(),
    () => '',
  );
  return Number(text.match(/^\w*outbox_depth (\S+)/m)?.[1] ?? NaN);
}
