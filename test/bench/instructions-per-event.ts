/**
 * `npx tsx test/bench/instructions-per-event.ts [--servers durable,bot-intake] [--events N] [--warm N] [--no-build] [--top N]`
 *
 * Instructions per webhook event, counted by valgrind (callgrind), for the intake's receivers:
 * a figure this machine's noise barely moves. Time per event varies by up to 45% from round
 * to round here, so a change of a few percent cannot be told by timing; the instructions a
 * server executes for the same events repeat: the durable receiver's within 2%, the bot's intake
 * within 4% (V8's compiler's share of it varies from run to run; docs/benchmarks.md, 2026-11-29).
 * They are not time (cache misses and branch mispredictions are not counted), so they tell
 * where a difference in work is, not the ratio the intake bench measures.
 *
 * Each server (`durable`, `bare`, `bot-intake`: the scripts of processes.ts's receivers, the
 * bot's own intake without its router) runs under `valgrind --tool=callgrind`, with
 * `--perf-basic-prof` so that the V8-compiled functions can be named. It is sent `--warm`
 * events (default 5,000: V8 is still compiling the request path after 1,000), its counters are
 * zeroed, it is sent `--events` (default 10,000), and its counters are dumped. The servers
 * run at once, one per core: the counts depend little on timing. Printed: instructions per
 * event, in all and by kind (the Ed25519 verification, JavaScript, V8's builtins, compiler and
 * collector, SQLite, the HTTP parser, ...), each server's ratio to the first, and the
 * JavaScript functions that differ most between the first two. Needs valgrind (`apt install
 * valgrind`) and, for bot-intake, `npm run build` (done unless `--no-build`). Not part of
 * `npm run bench`: about four minutes.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startEmulator } from '../../src/emulator/index.js';
import {
  BASELINE_SCRIPTS,
  buildBot,
  isReceiverKind,
  listeningUrl,
  receiverPath,
  startLoadProcess,
  untilQuiet,
  type ReceiverKind,
} from './processes.js';
import { createNodes, signer } from './webhook-intake.js';
import { costByFunction, kindOf, jsFunctionNames } from './callgrind-costs.js';

const { values } = parseArgs({
  options: {
    servers: { type: 'string', default: 'durable,bot-intake' },
    events: { type: 'string', default: '10000' },
    warm: { type: 'string', default: '5000' },
    'no-build': { type: 'boolean', default: false },
    top: { type: 'string', default: '15' },
  },
});

const named = values.servers.split(',');
const servers = named.filter(isReceiverKind);
if (servers.length !== named.length) throw new Error(`--servers names durable, bare or bot-intake, not ${values.servers}`);
if (spawnSync('valgrind', ['--version'], { stdio: 'ignore' }).status !== 0)
  throw new Error('valgrind is not installed (apt install valgrind): it counts the instructions');
if (!values['no-build'] && servers.includes('bot-intake')) buildBot();

const root = new URL('../../', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'rln-instructions-'));
const emulator = await startEmulator({ seed: 'none', lifecycleDelayMs: 5 });
const sign = signer(emulator, await createNodes(emulator, 50));

/** A server under callgrind, its V8 code named in /tmp/perf-<pid>.map. */
async function startCounted(kind: ReceiverKind): Promise<{ child: ChildProcess; url: string }> {
  const out = join(dir, kind);
  const child = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      `--callgrind-out-file=${out}.%p`,
      // V8 writes code at run time: valgrind must see it change.
      '--smc-check=all-non-file',
      process.execPath,
      '--perf-basic-prof',
      // (Which also has V8 write a log of its code, by default into the working directory.)
      `--logfile=${out}.v8.log`,
      '--no-logfile-per-isolate',
      '--import',
      'tsx',
      `${root}test/bench/${BASELINE_SCRIPTS[kind]}`,
    ],
    { cwd: root, env: { ...process.env, BASELINE_PUBLIC_KEY: emulator.publicKey.pem }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-4000)));
  // Slow to start under valgrind (tsx and the modules compile at a fiftieth of the speed).
  const started = listeningUrl(child, 300_000, (said) => `${kind} did not start under valgrind: ${said}${err}`);
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`${kind} exited (${code}) under valgrind: ${err}`))),
  );
  const url = await Promise.race([started, exited]);
  return { child, url };
}

const control = (what: '-z' | '-d', pid: number) => {
  const r = spawnSync('callgrind_control', [what, String(pid)], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`callgrind_control ${what} ${pid} failed: ${r.stderr}`);
};
/**
 * Until the server has finished what the last events set going (its commits, its router's
 * passes): under 10 % of a core over a second. (A server idle under valgrind still spends a few
 * percent on its timers, fifty times slower than natively.)
 */
const settle = (pid: number) => untilQuiet(pid, undefined, { cpuMsPerS: 100, maxS: 120 });
/** The dump `callgrind_control -d` asked for (part 1: the counters were zeroed once), once its size holds between two looks. */
async function dumpOf(kind: ReceiverKind, pid: number): Promise<string> {
  let size = -1;
  for (let i = 0; i < 600; i++) {
    const file = readdirSync(dir).find((f) => f.startsWith(`${kind}.${pid}.`) && f.endsWith('.1'));
    const now = file ? statSync(join(dir, file)).size : -1;
    if (file && now > 0 && now === size) return join(dir, file);
    size = now;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${kind}: no whole callgrind dump in ${dir}`);
}

/** One server: warmed, zeroed, sent the events, dumped; its costs by function. */
async function measure(kind: ReceiverKind, load: Awaited<ReturnType<typeof startLoadProcess>>) {
  const { child, url } = await startCounted(kind);
  try {
    const path = receiverPath(kind);
    const warm = await load.run({ kind: 'closed', url, requests: sign(Number(values.warm), path), concurrency: 16 });
    await settle(child.pid!);
    control('-z', child.pid!);
    const run = await load.run({ kind: 'closed', url, requests: sign(Number(values.events), path), concurrency: 16 });
    await settle(child.pid!);
    control('-d', child.pid!);
    if (warm.failed || run.failed) throw new Error(`${kind}: ${warm.failed + run.failed} requests failed`);
    // (The process is killed after it, so no other dump follows.)
    const file = await dumpOf(kind, child.pid!);
    const costs = costByFunction(readFileSync(file, 'utf8'), jsFunctionNames(`/tmp/perf-${child.pid}.map`));
    return { kind, events: run.ok, costs };
  } finally {
    child.kill('SIGKILL');
    rmSync(`/tmp/perf-${child.pid}.map`, { force: true });
  }
}

const loads = await Promise.all(servers.map(() => startLoadProcess()));
try {
  const results = await Promise.all(servers.map((kind, i) => measure(kind, loads[i])));
  const perEvent = (r: (typeof results)[number], pick: (fn: string) => boolean) => {
    let sum = 0;
    for (const [fn, c] of r.costs) if (pick(fn)) sum += c;
    return Math.round(sum / r.events);
  };
  const kinds = [...new Set(results.flatMap((r) => [...r.costs.keys()].map(kindOf)))];
  const first = perEvent(results[0], () => true);
  for (const r of results) {
    const total = perEvent(r, () => true);
    const byKind = Object.fromEntries(kinds.map((k) => [k, perEvent(r, (fn) => kindOf(fn) === k)] as const).sort((a, b) => b[1] - a[1]));
    process.stdout.write(
      `${JSON.stringify({ server: r.kind, events: r.events, instructions_per_event: total, ratio_of_first_to_this: Number((first / total).toFixed(3)), by_kind: byKind })}\n`,
    );
  }
  if (results.length >= 2) {
    // The JavaScript functions whose instructions per event differ most between the first two servers.
    const [a, b] = results;
    const js = (r: typeof a) => new Map([...r.costs].filter(([fn]) => kindOf(fn) === 'javascript').map(([fn, c]) => [fn, c / r.events]));
    const ja = js(a);
    const jb = js(b);
    const names = [...new Set([...ja.keys(), ...jb.keys()])];
    names.sort((x, y) => Math.abs((jb.get(y) ?? 0) - (ja.get(y) ?? 0)) - Math.abs((jb.get(x) ?? 0) - (ja.get(x) ?? 0)));
    for (const fn of names.slice(0, Number(values.top)))
      process.stdout.write(
        `${JSON.stringify({ function: fn, [a.kind]: Math.round(ja.get(fn) ?? 0), [b.kind]: Math.round(jb.get(fn) ?? 0) })}\n`,
      );
  }
} finally {
  await Promise.all(loads.map((l) => l.close()));
  await emulator.close();
  rmSync(dir, { recursive: true, force: true });
}
