/**
 * `npx tsx test/bench/cpu-per-event.ts [--config routed|unrouted] [--events N] [--rate R] [--no-build] [--node-arg=--flag ...] [--not-deployed] [--warm N] [--idle S] [--keep-log FILE]`
 *
 * The bot's CPU time per accepted event, a figure that other work on the machine barely
 * moves (unlike events/s): the bot is started as in the intake benchmark (compiled, its own
 * process, pinned to core 0), sent `events` signed events (closed loop, 16 connections, or an
 * open loop at `rate`/s), and its utime+stime are read from /proc before the first event,
 * when the last is answered, and once it is quiet again (its outbox drained: depth 0 and under 2% CPU
 * for 1 s). Also prints the event-loop delay p99/max the bot reports on /metrics and RSS.
 * The bot runs with the Dockerfile's node flags and environment (--not-deployed: without them),
 * plus any --node-arg. Also prints the collections during intake (from the bot's /metrics).
 * For comparing two builds in alternating pairs; not part of `npm run bench`.
 *
 * Before any clock, `--warm` events (default 1,000) warm the server up, closed loop. For a p99 at a
 * steady rate, give the bot 10,000: after 1,000 its helper threads (most likely V8's compilers:
 * its request path is larger than a receiver's) still took ~30% of the core for the first 1.5 s
 * of the run, and that start alone set the run's p99 (docs/benchmarks.md, 2026-11-28).
 *
 * `p99_by_fifth`: the p99 of each fifth of the run's answers, in order: a run's start (a bot whose
 * optimized code a collection in the quiet spell dropped compiles again) apart from the rest.
 * `--idle S` waits S seconds more once the bot is quiet, before the run (V8's own memory-reducing
 * collections come after several seconds of quiet). `--keep-log FILE` copies the bot's output
 * there (with `--node-arg=--trace-opt`, `--trace-deopt`, `--trace-gc`: V8's traces).
 *
 * `main_thread_us_per_event` is the part of it spent on the event loop's thread (the rest: V8's
 * helper threads, the checkpoint worker).
 *
 * `--server durable` (or `bare`) measures the intake bench's durable (or bare) receiver the
 * same way instead of the bot, on the same core: CPU per event and p50/p99 (it has no
 * /metrics, so no collections or event-loop figures). `--node-arg` goes to the receiver then
 * (`--cpu-prof`: its profile, to set beside the bot's). At a steady `--rate 1000` the two side
 * by side tell how busy each keeps its core for the same events (docs/benchmarks.md).
 *
 * `--server bot-intake` measures the bot's own intake alone (bot-intake-server.ts: the compiled
 * bot's route, store and router, nothing else; built first unless `--no-build`), the same way;
 * with `BOT_INTAKE_NO_WORKER=1` in the environment, without its router. Beside the durable
 * receiver and the whole bot, it tells how much of the bot's distance from the durable limit
 * is the request path, the router, and the rest of the bot (docs/benchmarks.md, 2026-11-29).
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startEmulator } from '../../src/emulator/index.js';
import { startFakeSlack } from '../fakes/slack/index.js';
import {
  buildBot,
  cpuMs,
  cpuTimes,
  isReceiverKind,
  pinSelf,
  receiverPath,
  startBaselineProcess,
  startLoadProcess,
  untilQuiet as quiet,
  type ReceiverKind,
} from './processes.js';
import { createNodes, signer, startBot } from './webhook-intake.js';

const { values } = parseArgs({
  options: {
    config: { type: 'string', default: 'routed' },
    events: { type: 'string', default: '20000' },
    rate: { type: 'string' },
    'no-build': { type: 'boolean', default: false },
    nodes: { type: 'string', default: '50' },
    'node-arg': { type: 'string', multiple: true },
    'not-deployed': { type: 'boolean', default: false },
    server: { type: 'string', default: 'bot' },
    warm: { type: 'string', default: '1000' },
    idle: { type: 'string', default: '0' },
    'keep-log': { type: 'string' },
  },
});

async function metric(url: string, name: string): Promise<number> {
  const text = await fetch(`${url}/metrics`).then(
    (r) => r.text(),
    () => '',
  );
  return Number(text.match(new RegExp(`^\\w*${name} (\\S+)`, 'm'))?.[1] ?? NaN);
}

/** The bot's garbage collections so far, by kind (minor, major, incremental, weakcb): count and seconds. */
async function gcStats(url: string): Promise<Record<string, { n: number; s: number }>> {
  const text = await fetch(`${url}/metrics`).then(
    (r) => r.text(),
    () => '',
  );
  const out: Record<string, { n: number; s: number }> = {};
  for (const m of text.matchAll(/^\w*nodejs_gc_duration_seconds_(sum|count)\{kind="(\w+)"\} (\S+)/gm)) {
    const k = (out[m[2]] ??= { n: 0, s: 0 });
    if (m[1] === 'sum') k.s = Number(m[3]);
    else k.n = Number(m[3]);
  }
  return out;
}

if (!(Number(values.warm) >= 0)) throw new Error(`--warm is a number of events, not ${values.warm}`);
if (values.server !== 'bot' && !isReceiverKind(values.server))
  throw new Error(`--server is bot, durable, bare or bot-intake, not ${values.server}`);
if (!values['no-build'] && (values.server === 'bot' || values.server === 'bot-intake')) buildBot();
pinSelf();
const dir = mkdtempSync(join(tmpdir(), 'rln-cpu-'));
const emulator = await startEmulator({ seed: 'none', lifecycleDelayMs: 5 });
const slack = await startFakeSlack();
const load = await startLoadProcess();

/** `requests` sent to `url` (open loop at --rate, else closed), with the CPU `pid` spent: the figures every server gives. */
async function measured(pid: number, url: string, requests: ReturnType<ReturnType<typeof signer>>) {
  const { all: c0, main: m0 } = cpuTimes(pid);
  const r = values.rate
    ? await load.run({ kind: 'open', url, requests, rate: Number(values.rate) })
    : await load.run({ kind: 'closed', url, requests, concurrency: 16 });
  const { all: c1, main: m1 } = cpuTimes(pid);
  return {
    c0,
    figures: {
      events: requests.length,
      load_average: os.loadavg()[0].toFixed(1),
      events_per_s: Math.round(r.perSecond),
      failed: r.failed,
      p50_ms: Number(r.p50Ms.toFixed(2)),
      p99_ms: Number(r.p99Ms.toFixed(2)),
      p99_by_fifth: r.p99ByFifthMs,
      cpu_us_per_event_intake: Math.round(((c1 - c0) * 1000) / requests.length),
      // Of which the event loop's thread: the rest is helper threads (GC, compiler, checkpoints).
      main_thread_us_per_event: Math.round(((m1 - m0) * 1000) / requests.length),
    },
  };
}

/** `--idle S`: the quiet spell before the run, for the bot and the receivers alike. */
async function idleSpell(): Promise<void> {
  if (Number(values.idle) > 0) await new Promise((r) => setTimeout(r, Number(values.idle) * 1000));
}

/** `--server durable|bare|bot-intake`: the receiver in its own process, pinned as the bot is, measured as the bot is (without /metrics). */
async function receiver(kind: ReceiverKind, sign: ReturnType<typeof signer>): Promise<void> {
  const server = await startBaselineProcess(emulator.publicKey.pem, kind, values['node-arg']);
  const path = receiverPath(kind);
  try {
    await load.run({ kind: 'closed', url: server.url, requests: sign(Number(values.warm), path), concurrency: 16 });
    await quiet(server.pid);
    await idleSpell();
    const { figures } = await measured(server.pid, server.url, sign(Number(values.events), path));
    process.stdout.write(`${JSON.stringify({ server: kind, ...figures })}\n`);
  } finally {
    await server.close();
  }
}

try {
  const nodeIds = await createNodes(emulator, Number(values.nodes));
  const sign = signer(emulator, nodeIds);
  const config = values.config === 'unrouted' ? 'unrouted' : 'routed';
  if (isReceiverKind(values.server)) await receiver(values.server, sign);
  else await measureBot(config, sign);
} finally {
  await load.close();
  await slack.close();
  await emulator.close();
  rmSync(dir, { recursive: true, force: true });
}

/** The bot, compiled and started as deployed, measured with its collections and event-loop delay from its /metrics. */
async function measureBot(config: 'routed' | 'unrouted', sign: ReturnType<typeof signer>): Promise<void> {
  const bot = await startBot(dir, config, emulator, slack, values['node-arg'], !values['not-deployed']);
  try {
    await load.run({ kind: 'closed', url: bot.url, requests: sign(Number(values.warm)), concurrency: 16 });
    await quiet(bot.pid, bot.url);
    await idleSpell();
    const n = Number(values.events);
    const requests = sign(n);
    const g0 = await gcStats(bot.url);
    await metric(bot.url, 'nodejs_eventloop_lag_p99_seconds'); // a scrape resets the delay histogram
    const { c0, figures } = await measured(bot.pid, bot.url, requests);
    const lagP99 = (await metric(bot.url, 'nodejs_eventloop_lag_p99_seconds')) * 1000;
    const lagMax = (await metric(bot.url, 'nodejs_eventloop_lag_max_seconds')) * 1000;
    const g1 = await gcStats(bot.url); // after the lag figures: a scrape resets their histogram
    const gc = (kind: string) => ({ n: (g1[kind]?.n ?? 0) - (g0[kind]?.n ?? 0), us: ((g1[kind]?.s ?? 0) - (g0[kind]?.s ?? 0)) * 1e6 });
    const rss = bot.rssMiB();
    await quiet(bot.pid, bot.url);
    const c2 = cpuMs(bot.pid);
    const out = {
      config,
      ...figures,
      cpu_us_per_event_with_drain: Math.round(((c2 - c0) * 1000) / n),
      // Garbage collection during intake (pauses on the main thread, from the bot's /metrics).
      gc_minor_count: gc('minor').n,
      gc_minor_us_per_event: Number((gc('minor').us / n).toFixed(1)),
      gc_major_us_per_event: Number(((gc('major').us + gc('incremental').us) / n).toFixed(1)),
      eventloop_lag_p99_ms: Number(lagP99.toFixed(1)),
      eventloop_lag_max_ms: Number(lagMax.toFixed(1)),
      rss_mib_after: Math.round(rss),
    };
    process.stdout.write(`${JSON.stringify(out)}\n`);
  } finally {
    await bot.close();
    if (values['keep-log']) copyFileSync(join(dir, `${config}.log`), values['keep-log']);
  }
}
