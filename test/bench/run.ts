/**
 * `npm run bench [-- --json] [-- --only name,name] [-- --nodes N] [-- --events N --rounds R --throughput-only]`: runs the
 * benchmarks and prints each one's figures, its ratio to the baseline measured in the same run, and
 * its targets. `--nodes N` is given to the benchmarks that take a number of nodes (else their own
 * default); `--events N` (per round) and `--rounds R` shorten the intake benchmark while iterating
 * (the figures of record are its defaults: 20,000 events, 3 rounds), and `--throughput-only` leaves
 * out its steady-rate latency and memory runs.
 */
import os from 'node:os';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { BenchResult } from './types.js';
import { webhookIntake } from './webhook-intake.js';
import { footprint } from './footprint.js';
import { commandAck } from './command-ack.js';
import { storm } from './storm.js';
import { reportsManyNodes } from './reports-many-nodes.js';
import { flood } from './flood.js';
import { chartRender } from './chart-render.js';
import { activityPolling } from './activity-polling.js';
import { intakePostgres } from './intake-postgres.js';
import { scale } from './scale.js';

/** What the command line gives every benchmark; each takes what it uses. */
interface BenchArgs {
  nodes?: number;
  /** Events per round and rounds (intake): a reduced run while iterating; the defaults are the measured form. */
  events?: number;
  rounds?: number;
  /** Intake: only the throughput rounds (no steady-rate latency, no memory run). */
  throughputOnly?: boolean;
}

const benches: Record<string, (a: BenchArgs) => Promise<BenchResult>> = {
  // Issue 18: three processes, 50 nodes, 16 connections, median of 3 alternating rounds.
  intake: (a) =>
    webhookIntake({
      nodes: 50,
      events: a.events ?? 20_000,
      rounds: a.rounds ?? 3,
      concurrency: 16,
      rate: 1_000,
      seconds: 10,
      burst: a.events ?? 20_000,
      settleS: 30,
      throughputOnly: a.throughputOnly,
    }),
  // Issue 17: routed intake on SQLite, on PostgreSQL, and on two replicas sharing one PostgreSQL.
  'intake-pg': () => intakePostgres({ nodes: 50, events: 6_000, rounds: 3, concurrency: 16, rate: 500, seconds: 10, drainS: 120 }),
  ack: () => commandAck({ commands: 50, serviceLatencyMs: 5_000 }),
  storm: () => storm({ events: 5_000, nodes: 200, seconds: 10 }),
  reports: () => reportsManyNodes({ nodes: 500, latencyMs: 50 }),
  flood: () => flood({ webhookConnections: 2_000, slackConnections: 1_000, bodyBytes: 1_000_000, maxSeconds: 20 }),
  chart: () => chartRender({ runs: 15 }),
  // The real interval is 30 s; scaled to 6 s (figures per pass, then per minute at 30 s).
  // 10 passes: WATCH_SLOW_EVERY's default, so the window holds each node's slower checks once.
  activity: (a) => activityPolling({ nodes: a.nodes ?? 500, intervalS: 6, passes: 10 }),
  // The same at the real 30 s interval (about 5 minutes; run on demand: --only activity-30s). At 6 s
  // a pass comes before the process has been quiet 5 s, so V8 never gets to give back the young
  // generation between passes; at 30 s it does (src/cli/memory-settle.ts).
  'activity-30s': (a) => activityPolling({ nodes: a.nodes ?? 500, intervalS: 30, passes: 2 }),
  // Issue 29: an account of 2,000 nodes at 50 ms per node call (about 5 minutes; run on demand: --only scale).
  scale: (a) => scale({ nodes: a.nodes ?? 2_000, latencyMs: 50, idleS: 30, warmS: 65, windowS: 60 }),
  footprint: async () => {
    execFileSync(
      process.execPath,
      [fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url)), '-p', 'tsconfig.build.json'],
      {
        cwd: fileURLToPath(new URL('../../', import.meta.url)),
        stdio: 'inherit',
      },
    );
    return footprint();
  },
};

/** Run only when named (--only). */
const onDemand = new Set(['activity-30s', 'scale']);

async function main() {
  const args = process.argv.slice(2);
  const json = args.includes('--json');
  const onlyArg = args.find((a) => a.startsWith('--only'));
  const only = onlyArg
    ? (onlyArg.includes('=') ? onlyArg.split('=')[1] : args[args.indexOf(onlyArg) + 1]).split(',')
    : Object.keys(benches).filter((n) => !onDemand.has(n));
  const valueOf = (flag: string) => {
    const a = args.find((x) => x === flag || x.startsWith(`${flag}=`));
    return a === undefined ? undefined : a.includes('=') ? a.split('=')[1] : args[args.indexOf(a) + 1];
  };
  const count = (flag: string) => {
    const text = valueOf(flag);
    const n = text === undefined ? undefined : Number(text);
    if (n !== undefined && !(Number.isInteger(n) && n > 0)) throw new Error(`${flag} takes a whole number above 0, not ${text}`);
    return n;
  };
  const nodes = count('--nodes');
  const events = count('--events');
  const rounds = count('--rounds');
  const machine = {
    cpus: os.cpus().length,
    cpu: os.cpus()[0]?.model ?? '?',
    memGiB: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
  };
  const results: BenchResult[] = [];
  for (const name of only) {
    const bench = benches[name];
    if (!bench) throw new Error(`no benchmark "${name}"; there are: ${Object.keys(benches).join(', ')}`);
    if (!json) process.stdout.write(`\n▶ ${name} …\n`);
    const r = await bench({ nodes, events, rounds, throughputOnly: args.includes('--throughput-only') });
    results.push(r);
    if (!json) {
      for (const [k, v] of Object.entries(r.figures)) process.stdout.write(`  ${k.padEnd(34)} ${v}\n`);
      for (const t of r.targets)
        process.stdout.write(`  ${t.met ? 'PASS' : 'MISS'} ${t.what}${t.value === undefined ? '' : ` (${t.value})`}\n`);
    }
  }
  if (json) process.stdout.write(`${JSON.stringify({ machine, results }, null, 2)}\n`);
  else process.stdout.write(`\nmachine: ${machine.cpus} × ${machine.cpu}, ${machine.memGiB} GiB, Node ${machine.node}\n`);
  process.exit(0);
}

main().catch((err) => {
  process.stderr.write(`benchmark failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
