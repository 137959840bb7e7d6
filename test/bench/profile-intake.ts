/**
 * `npx tsx test/bench/profile-intake.ts [events] [unrouted]`: runs the routed intake (every node watched,
 * or none with `unrouted`)
 * with the bot under `node --cpu-prof`, then reads the profile and prints where the bot's CPU
 * time goes per accepted event: each sample is charged to the innermost frame of its stack
 * that belongs to a stage (verification, parsing, dedupe, storing, routing, outbox, logging,
 * framework...); then the functions with the most self and inclusive time. Only samples from the first webhook on are counted (not the start-up).
 * `--profile FILE` reads an existing .cpuprofile instead (with `--events N`), the receivers' too (`cpu-per-event.ts --server durable --node-arg=--cpu-prof`). `STAGE=<name>` lists
 * a stage's functions; `STALLS=<ms>` lists the busy periods of at least that long (`stalls`).
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WARM_EVENTS, webhookIntake } from './webhook-intake.js';

interface CallFrame {
  functionName: string;
  url: string;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

type Stage = string;

/** The stage of one frame, or undefined when the frame says nothing (look further out). */
function stageOf(f: CallFrame): Stage | undefined {
  const { functionName: fn, url } = f;
  if (fn === '(garbage collector)') return 'gc';
  if (fn === '(idle)') return 'idle';
  if (fn === '(program)') return 'program (V8/native, unattributed)';
  if (/verify-signature|key-cache/.test(url)) return 'verification';
  if (/read-event/.test(url)) return fn === 'dedupeKeyOf' || fn === 'canonical' ? 'dedupe (key hash)' : 'parsing';
  if (/outbox-worker|render-notifications|chat\/slack|@slack|axios/.test(url)) return 'outbox worker (after the 2xx)';
  // Since the router (route-pending.ts) writes the outbox rows after the 2xx, in the worker's passes.
  // Their SQL is often called from a continuation (after an await), whose stack starts at the store
  // module: the route queue and the nodes' rows are the router's, the outbox table the worker's
  // (but for the routed rows' chunks: `breakdown`).
  if (/route-pending|notify-route-queue|notify-nodes/.test(url) || fn === 'insertEventRows' || fn === 'takeEventsToRoute')
    return 'routing (router, after the 2xx)';
  if (fn === 'insertOutbox') return 'routing (outbox rows)';
  if (/notify-outbox/.test(url)) return 'outbox worker (after the 2xx)';
  if (fn === 'watchesFor' || fn === 'activeMute' || fn === 'openIncident' || /notify-routing-index/.test(url)) return 'routing (look-ups)';
  if (fn === 'insertEvent' || fn === 'insertEvents') return 'storing (event row, dedupe by key)';
  if (/group-commit/.test(url) || fn === 'tx' || fn === 'control' || /better-sqlite3/.test(url)) return 'storing (transaction, commit)';
  if (fn === 'ingestEvent' || /create-notifier/.test(url)) return 'routing (ingest step)';
  if (/node-directory/.test(url)) return 'node look-up';
  if (/pino|sonic-boom|thread-stream/.test(url)) return 'logging';
  if (/prom-client|metrics/.test(url)) return 'metrics';
  if (/webhook-routes/.test(url)) {
    if (fn === 'parse') return 'parsing';
    return 'handler (webhook-routes)';
  }
  if (/fastify|find-my-way|avvio|light-my-request|src\/http\//.test(url)) return 'framework (fastify)';
  if (/node:_http|node:http|node:net|node:stream|node:internal\/(http|streams|stream_base|net)|_http_/.test(url))
    return 'framework (node http)';
  return undefined;
}

/** With `STAGE=<name>` in the environment, `breakdown` also prints that stage's functions ("other", say). */
const stageShown = process.env.STAGE;

const nameOf = (f: CallFrame) =>
  `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*\/(node_modules|dist)\//, '$1/').replace(/^file:\/\/.*\//, '')}`;

/** The profile's nodes by id, and each node's parent. */
function treeOf(profile: CpuProfile): { byId: Map<number, ProfileNode>; parent: Map<number, number> } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  return { byId, parent };
}

/** Adds `amount` to each distinct function on a sample's stack (its inclusive time) that `keep` keeps. */
function addInclusive(
  into: Map<string, number>,
  tree: ReturnType<typeof treeOf>,
  sample: number,
  amount: number,
  keep: (f: CallFrame) => boolean = () => true,
): void {
  const seen = new Set<string>();
  for (let cur: number | undefined = sample; cur !== undefined; cur = tree.parent.get(cur)) {
    const f = tree.byId.get(cur)!.callFrame;
    const k = nameOf(f);
    if (seen.has(k) || !keep(f)) continue;
    seen.add(k);
    into.set(k, (into.get(k) ?? 0) + amount);
  }
}

/**
 * The samples from the first inside a webhook request to the last: not the start-up, not the drain
 * at exit. A request's frames are the named functions of webhook-routes; at start-up the route
 * module runs too, but only its top level (no name) and `webhookRoutes`, which mounts it.
 */
function requestWindow(profile: CpuProfile, byId: Map<number, ProfileNode>, parent: Map<number, number>): { first: number; last: number } {
  const inRequest = (id: number) => {
    let receiver = false; // a frame of a receiver's (`cpu-per-event.ts --server durable|bare`)
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const f = byId.get(cur)!.callFrame;
      if (/webhook-routes/.test(f.url) && f.functionName !== '' && f.functionName !== 'webhookRoutes') return true;
      if (/(durable|baseline)-webhook-server/.test(f.url)) receiver = true;
      // ... called by node's HTTP server, a stream's event or a timer, not by the module's start-up.
      else if (receiver && /node:_http_server|node:internal\/streams|node:internal\/timers/.test(f.url)) return true;
    }
    return false;
  };
  const first = Math.max(0, profile.samples.findIndex(inRequest));
  let last = profile.samples.length - 1;
  while (last > first && !inRequest(profile.samples[last])) last--;
  return { first, last };
}

export function breakdown(profile: CpuProfile, events: number): Array<{ stage: Stage; ms: number; usPerEvent: number; share: number }> {
  const { byId, parent } = treeOf(profile);
  const stageCache = new Map<number, Stage>();
  const stageOfNode = (id: number): Stage => {
    const hit = stageCache.get(id);
    if (hit) return hit;
    let cur: number | undefined = id;
    let s: Stage | undefined;
    const leaf = byId.get(id)!.callFrame;
    while (cur !== undefined && !(s = stageOf(byId.get(cur)!.callFrame))) cur = parent.get(cur);
    // Work the outbox worker does after the 2xx (routing, then posting) is its own, whatever it
    // calls: its SQL is not the request's storing, nor its look-ups the request's routing.
    for (let up: number | undefined = id, below = ''; up !== undefined; up = parent.get(up)) {
      const url = byId.get(up)!.callFrame.url;
      // The outbox table's one chunked write (row-chunks.ts) is the router's rows (insertEventRows).
      if (/row-chunks/.test(url) && /notify-outbox/.test(below)) s = 'routing (router, after the 2xx)';
      below = url;
      if (/route-pending/.test(url)) s = 'routing (router, after the 2xx)';
      else if (/outbox-worker/.test(url)) s = s === 'routing (router, after the 2xx)' ? s : 'outbox worker (after the 2xx)';
    }
    // JSON.parse and native calls report no url: the caller names them.
    if (leaf.functionName === 'parse' && leaf.url === '' && s === 'handler (webhook-routes)') s = 'parsing';
    s ??= 'other';
    stageCache.set(id, s);
    return s;
  };
  const totals = new Map<Stage, number>();
  const leaves = new Map<string, number>();
  const { first, last } = requestWindow(profile, byId, parent);
  for (let i = first; i <= last; i++) {
    const id = profile.samples[i];
    const s = stageOfNode(id);
    totals.set(s, (totals.get(s) ?? 0) + profile.timeDeltas[i] / 1000);
    if (s === stageShown) {
      const leaf = nameOf(byId.get(id)!.callFrame);
      leaves.set(leaf, (leaves.get(leaf) ?? 0) + profile.timeDeltas[i] / 1000);
    }
  }
  if (stageShown) {
    process.stdout.write(`The functions of stage "${stageShown}" (self time, µs per event):\n`);
    for (const [fn, ms] of [...leaves].sort((a, b) => b[1] - a[1]).slice(0, 25))
      process.stdout.write(`  ${(Math.round((ms * 10_000) / events) / 10).toString().padStart(7)}  ${fn}\n`);
  }
  const busy = [...totals].filter(([s]) => s !== 'idle').reduce((a, [, ms]) => a + ms, 0);
  return [...totals]
    .map(([stage, ms]) => ({
      stage,
      ms: Math.round(ms),
      usPerEvent: Math.round(((ms * 1000) / events) * 10) / 10,
      share: stage === 'idle' ? NaN : Math.round((ms / busy) * 1000) / 10,
    }))
    .sort((a, b) => b.ms - a.ms);
}

/**
 * The functions with the most self time, and the most inclusive time (a sample counts once for
 * each distinct function on its stack), over the same window as `breakdown`: µs per event.
 */
export function topFunctions(
  profile: CpuProfile,
  events: number,
  n = Number(process.env.TOP ?? 25),
): { self: Array<{ fn: string; usPerEvent: number }>; inclusive: Array<{ fn: string; usPerEvent: number }> } {
  const tree = treeOf(profile);
  const { byId, parent } = tree;
  const { first, last } = requestWindow(profile, byId, parent);
  const self = new Map<string, number>();
  const incl = new Map<string, number>();
  for (let i = first; i <= last; i++) {
    const id = profile.samples[i];
    const us = profile.timeDeltas[i];
    const leaf = nameOf(byId.get(id)!.callFrame);
    self.set(leaf, (self.get(leaf) ?? 0) + us);
    addInclusive(incl, tree, id, us);
  }
  const top = (m: Map<string, number>) =>
    [...m]
      .filter(([k]) => !k.startsWith('(idle)') && !k.startsWith('(root)'))
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([fn, us]) => ({ fn, usPerEvent: Math.round((us / events) * 10) / 10 }));
  return { self: top(self), inclusive: top(incl) };
}

/** The bot's own code, and the collector. */
const own = (f: CallFrame) => /\/(dist\/)?src\//.test(f.url) || f.functionName === '(garbage collector)';

/**
 * The busy periods of at least `minMs` in the request window: stretches of samples with no idle
 * one between. When each began (ms into the window), how long it lasted, and the functions of
 * the bot's own code that spent most of it (inclusive). A period is not one synchronous task:
 * the loop polls between its tasks, but a request read in one waits behind the work queued
 * before it, so the long periods and what fills them are where a p99 comes from. `STALLS=<ms>`
 * prints them (profile with `--cpu-prof-interval=250` for finer periods).
 */
export function stalls(profile: CpuProfile, minMs: number, n = 8): Array<{ atMs: number; ms: number; top: string[] }> {
  const tree = treeOf(profile);
  const { byId, parent } = tree;
  const { first, last } = requestWindow(profile, byId, parent);
  const out: Array<{ atMs: number; ms: number; top: string[] }> = [];
  let at = 0;
  let start = -1;
  let startAt = 0;
  const close = (end: number, endAt: number) => {
    const ms = (endAt - startAt) / 1000;
    if (ms < minMs) return;
    const incl = new Map<string, number>();
    for (let i = start; i < end; i++) addInclusive(incl, tree, profile.samples[i], profile.timeDeltas[i] / 1000, own);
    const top = [...incl]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([fn, fms]) => `${fms.toFixed(1)} ${fn}`);
    out.push({ atMs: Math.round(startAt / 1000), ms: Math.round(ms * 10) / 10, top });
  };
  for (let i = first; i <= last; i++) {
    at += i === first ? 0 : profile.timeDeltas[i];
    const idle = byId.get(profile.samples[i])!.callFrame.functionName === '(idle)';
    if (!idle && start < 0) {
      start = i;
      startAt = at;
    } else if (idle && start >= 0) {
      close(i, at);
      start = -1;
    }
  }
  if (start >= 0) close(last + 1, at);
  return out;
}

async function main() {
  const args = process.argv.slice(2);
  const fileArg = args.indexOf('--profile');
  let file: string;
  let events: number;
  if (fileArg >= 0) {
    file = args[fileArg + 1]!;
    events = Number(args[args.indexOf('--events') + 1]);
  } else {
    const perRound = Number(args.find((a) => /^\d+$/.test(a)) ?? 6_000);
    const config = args.includes('unrouted') ? 'unrouted' : 'routed';
    const dir = mkdtempSync(join(tmpdir(), 'rln-prof-'));
    const r = await webhookIntake({
      nodes: 50,
      events: perRound,
      rounds: 3,
      concurrency: 16,
      rate: 1_000,
      seconds: 5,
      burst: 0,
      settleS: 0,
      throughputOnly: true,
      configs: [config],
      botNodeArgs: ['--cpu-prof', `--cpu-prof-dir=${dir}`],
      // The profiler's own sampling keeps the bot above the default 2% of a core.
      quietCpuMsPerS: 100,
    });
    process.stdout.write(`${JSON.stringify(r.figures)}\n`);
    file = join(dir, readdirSync(dir).find((f) => f.endsWith('.cpuprofile'))!);
    events = WARM_EVENTS + 3 * perRound;
  }
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const rows = breakdown(profile, events);
  process.stdout.write(`profile: ${file}\nevents: ${events}\n\n| Stage | ms | µs per event | share of busy time |\n|---|---|---|---|\n`);
  for (const r of rows)
    process.stdout.write(`| ${r.stage} | ${r.ms} | ${r.usPerEvent} | ${Number.isNaN(r.share) ? '' : `${r.share}%`} |\n`);
  const top = topFunctions(profile, events);
  process.stdout.write('\nSelf time, µs per event:\n');
  for (const f of top.self) process.stdout.write(`  ${String(f.usPerEvent).padStart(7)}  ${f.fn}\n`);
  process.stdout.write('\nInclusive time, µs per event:\n');
  for (const f of top.inclusive) process.stdout.write(`  ${String(f.usPerEvent).padStart(7)}  ${f.fn}\n`);
  if (process.env.STALLS) {
    const found = stalls(profile, Number(process.env.STALLS));
    process.stdout.write(`\nThe loop busy for ${process.env.STALLS} ms or more without a break: ${found.length} stretches\n`);
    for (const st of found) process.stdout.write(`  at ${st.atMs} ms, ${st.ms} ms:\n${st.top.map((t) => `      ${t}\n`).join('')}`);
  }
  process.exit(0);
}

if (process.argv[1]?.endsWith('profile-intake.ts')) {
  main().catch((err) => {
    process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
}
