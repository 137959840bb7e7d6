/**
 * An account at scale (issue 29): `npm run bench -- --only scale --nodes 2000`.
 *
 * The bot as deployed (compiled, `node dist/src/cli/main.js start` with the Dockerfile's flags, its
 * own process, Slack in HTTP mode against the fake Slack of this process), and the emulator in its
 * own process with `nodes` seeded nodes, RUNNING, initialised and unlocked, each node call answered
 * in `latencyMs`. On two cores or more the bot has core 0, the emulator and this process core 1.
 *
 * 1. Idle: the bot's CPU time and RSS over `idleS` seconds while no watch hears activity.
 * 2. Polling: one Slack channel watches every node with every kind, at POLL_INTERVAL_S=30; after
 *    `warmS` (the poller reads the account once an interval, then spreads the first polls over the
 *    next: up to two intervals), over `windowS` seconds: the
 *    polls done per second against those needed (nodes / 30 s), the intervals missed and the nodes
 *    overdue (the bot's /metrics), CPU as a share of one core and RSS over idle.
 * 3. While it polls, the times a user waits: `/rln status` (page 1), the App Home (app_home_opened
 *    to views.publish), `report balance all` and `report channels all` (to the bot's last answer).
 * Each against its target, PASS or MISS. The load average is shown: the machine may be shared.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NotifyStore, openDatabase } from '../../src/store/index.js';
import { startFakeSlack, type FakeSlack } from '../fakes/slack/index.js';
import { postSigned, signSlackRequest, slashCommandPayload } from '../fakes/slack/payloads.js';
import { startEmulatorProcess } from './emulator-process.js';
import { buildBot, cpuMs, pinning, pinSelf, startBotProcess, type BotProcess } from './processes.js';
import type { BenchResult } from './types.js';

export interface ScaleOptions {
  nodes: number;
  latencyMs: number;
  idleS: number;
  warmS: number;
  windowS: number;
}

const INTERVAL_S = 30;
const SECRET = 'scale-bench-signing-secret';
const CHANNEL = 'CSCALE';
const USER = { id: 'USCALE', name: 'scale' };
/** Every kind a watch may hear (commands/watch.ts's WATCH_KINDS). */
const EVERY_KIND = 'status,payments,channels,transfers,deposits,liquidity,lock,utxos,infra,liveness,peers,backup';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const seconds = (ms: number) => Math.round(ms / 100) / 10;

/** The sum of a counter or gauge over its labels, from the bot's /metrics. */
async function metric(bot: BotProcess, name: string): Promise<number> {
  const text = await (await fetch(`${bot.url}/metrics`)).text();
  let sum = 0;
  for (const m of text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'gm'))) sum += Number(m[1]);
  return sum;
}

/** `/rln <text>`: the time to the bot's last answer at its response_url (or its post in the channel), settled for `quietMs`. */
async function timeCommand(fake: FakeSlack, bot: BotProcess, text: string, done: RegExp): Promise<{ ms: number; answer: string }> {
  const responseUrl = fake.responseUrl();
  const postsBefore = fake.callsTo('chat.postMessage').length;
  const t0 = performance.now();
  const res = await postSigned(
    `${bot.url}/slack/events`,
    SECRET,
    slashCommandPayload({ user: USER, text, responseUrl, channelId: CHANNEL, teamId: fake.teamId }),
  );
  if (res.status !== 200) throw new Error(`/rln ${text}: the bot answered ${res.status}`);
  const answers = () => [
    ...fake.respondsTo(responseUrl).map((r) => JSON.stringify(r.body)),
    ...fake
      .callsTo('chat.postMessage')
      .slice(postsBefore)
      .map((c) => JSON.stringify(c.args)),
  ];
  // The answer, not the progress message that a slow report posts first ("Working: n of N …").
  const isAnswer = (a: string) => done.test(a) && !a.includes('Working:');
  while (performance.now() - t0 < 180_000) {
    const hit = answers().find(isAnswer);
    if (hit) return { ms: performance.now() - t0, answer: hit };
    await sleep(25);
  }
  throw new Error(`/rln ${text}: no answer matching ${done} in 180 s; answers: ${answers().join('\n').slice(0, 2000)}`);
}

/** "n of N node(s) answered", as a report says it (or its progress message's "n node(s) answered"). */
function answeredOf(answer: string): string {
  return answer.match(/(\d+ of \d+) node\(s\) answered/)?.[1] ?? answer.match(/(\d+) node\(s\) answered/)?.[1] ?? '?';
}

/** app_home_opened to the views.publish that answers it. */
async function timeAppHome(fake: FakeSlack, bot: BotProcess): Promise<number> {
  const before = fake.callsTo('views.publish').length;
  const raw = JSON.stringify({
    type: 'event_callback',
    team_id: fake.teamId,
    event_id: `Ev${Date.now()}`,
    event_time: Math.floor(Date.now() / 1000),
    event: { type: 'app_home_opened', user: USER.id, channel: `D${USER.id}`, tab: 'home' },
  });
  const t0 = performance.now();
  const res = await fetch(`${bot.url}/slack/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...signSlackRequest(SECRET, raw) },
    body: raw,
  });
  if (res.status !== 200) throw new Error(`app_home_opened: the bot answered ${res.status}`);
  for (let t = 0; t < 1200; t++) {
    if (fake.callsTo('views.publish').length > before) return performance.now() - t0;
    await sleep(25);
  }
  throw new Error('app_home_opened: no views.publish in 30 s');
}

export async function scale(o: ScaleOptions): Promise<BenchResult> {
  const loadAtStart = os.loadavg();
  buildBot();
  pinSelf();
  const emu = await startEmulatorProcess(['--seed', 'none', '--seed-nodes', String(o.nodes), '--latency', String(o.latencyMs)]);
  const fake = await startFakeSlack();
  const dir = mkdtempSync(join(tmpdir(), 'rln-bench-scale-'));
  const dbPath = join(dir, 'bot.db');
  const logFile = join(dir, 'bot.log');
  let bot: BotProcess | undefined;
  try {
    // BENCH_CPU_PROF_DIR=dir: the bot writes a V8 CPU profile there when it stops (open it in Chrome's DevTools).
    // BENCH_NODE_ARGS='--trace-gc …': more node flags for the bot (its output goes to the log, whose path is shown).
    const profDir = process.env.BENCH_CPU_PROF_DIR;
    const nodeArgs = [
      ...(profDir ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : []),
      ...(process.env.BENCH_NODE_ARGS?.split(/\s+/).filter(Boolean) ?? []),
    ];
    bot = await startBotProcess({
      logFile,
      nodeArgs,
      env: {
        LOG_LEVEL: 'warn',
        DATABASE_PATH: dbPath,
        SERVICE_URL: emu.url,
        SERVICE_API_TOKEN: emu.token,
        NODE_API_TOKEN: emu.nodeApiToken,
        SLACK_BOT_TOKEN: 'xoxb-scale-bench',
        SLACK_SIGNING_SECRET: SECRET,
        SLACK_API_URL: fake.apiUrl,
        ADMIN_USERS: `slack:${USER.id}`,
        POLL_INTERVAL_S: String(INTERVAL_S),
        WATCH_INDEXER_URL: '127.0.0.1:50001',
        WATCH_PROXY_ENDPOINT: 'rpc://127.0.0.1:3000/json-rpc',
      },
    });
    const figures: BenchResult['figures'] = {
      load_average_at_start: loadAtStart.map((l) => l.toFixed(1)).join(' '),
      nodes: o.nodes,
      node_call_latency_ms: o.latencyMs,
      pinned: pinning ? `bot on core ${pinning.server}, emulator and fake Slack on core ${pinning.load}` : 'no',
      bot_log: logFile,
    };
    await sleep(3_000); // start-up settles

    // 1. Idle.
    const c0 = cpuMs(bot.pid);
    await sleep(o.idleS * 1000);
    const idleCpuMs = cpuMs(bot.pid) - c0;
    const idleRss = bot.rssMiB();

    // 2. Every node watched, every kind.
    const db = openDatabase(dbPath);
    await new NotifyStore(db).upsertWatch({
      platform: 'slack',
      channel_id: CHANNEL,
      workspace_id: fake.teamId,
      target: 'all',
      target_name: null,
      statuses: null,
      kinds: EVERY_KIND,
      min_amount_msat: null,
      escalate_after_min: null,
      pagerduty_key: null,
      created_by: 'bench',
      created_at: Date.now(),
    });
    await db.close();
    await sleep(o.warmS * 1000);
    const polls0 = await metric(bot, 'rln_chatops_activity_polls_total');
    const missed0 = await metric(bot, 'rln_chatops_activity_missed_intervals_total');
    const c1 = cpuMs(bot.pid);
    const t1 = performance.now();
    let peakOverdue = 0;
    while (performance.now() - t1 < o.windowS * 1000) {
      await sleep(5_000);
      peakOverdue = Math.max(peakOverdue, await metric(bot, 'rln_chatops_activity_overdue_nodes'));
    }
    const pollCpuMs = cpuMs(bot.pid) - c1;
    const windowMs = performance.now() - t1;
    const pollRss = bot.rssMiB();
    const polls = (await metric(bot, 'rln_chatops_activity_polls_total')) - polls0;
    const missed = (await metric(bot, 'rln_chatops_activity_missed_intervals_total')) - missed0;
    const concurrency = await metric(bot, 'rln_chatops_activity_poll_concurrency');
    const pollsPerS = polls / (windowMs / 1000);
    const neededPerS = o.nodes / INTERVAL_S;
    const coreShare = (pollCpuMs / windowMs - idleCpuMs / (o.idleS * 1000)) * 100;
    const extraRss = pollRss - idleRss;

    // 3. What a user waits for, while the bot polls.
    const status = await timeCommand(fake, bot, 'status', /node-0001/);
    const home = await timeAppHome(fake, bot);
    const balance = await timeCommand(fake, bot, 'report balance all', /node-\d{4}|[Bb]alance/);
    const channels = await timeCommand(fake, bot, 'report channels all', /node-\d{4}|[Cc]hannel/);

    Object.assign(figures, {
      status_page1_s: seconds(status.ms),
      app_home_s: seconds(home),
      report_balance_all_s: seconds(balance.ms),
      report_channels_all_s: seconds(channels.ms),
      // How many nodes each report read: a fast report of nodes that did not answer is no success.
      report_balance_answered: answeredOf(balance.answer),
      report_channels_answered: answeredOf(channels.answer),
      polls_per_s: Math.round(pollsPerS * 10) / 10,
      polls_needed_per_s: Math.round(neededPerS * 10) / 10,
      missed_intervals_in_window: missed,
      peak_overdue_nodes: peakOverdue,
      poll_concurrency_at_end: concurrency,
      polling_core_pct: Math.round(coreShare * 10) / 10,
      idle_rss_mib: Math.round(idleRss),
      polling_rss_mib: Math.round(pollRss),
      extra_rss_mib: Math.round(extraRss),
      window_s: Math.round(windowMs / 1000),
      load_average_at_end: os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' '),
      bot_warnings: (readFileSync(logFile, 'utf8').match(/"level":40/g) ?? []).length,
    });
    const keepsUp = pollsPerS >= neededPerS * 0.95 && missed === 0;
    return {
      name: 'scale',
      figures,
      targets: [
        { what: '/rln status, page 1, within 3 s', value: `${seconds(status.ms)} s`, met: status.ms <= 3_000 },
        { what: 'the App Home within 3 s', value: `${seconds(home)} s`, met: home <= 3_000 },
        { what: 'report balance all within 5 s', value: `${seconds(balance.ms)} s`, met: balance.ms <= 5_000 },
        { what: 'report channels all within 5 s', value: `${seconds(channels.ms)} s`, met: channels.ms <= 5_000 },
        {
          what: `polling keeps every node at 30 s (${Math.round(neededPerS * 10) / 10} polls/s, no interval missed)`,
          value: `${Math.round(pollsPerS * 10) / 10} polls/s, ${missed} missed`,
          met: keepsUp,
        },
        { what: `polling ${o.nodes} nodes costs under 20% of a core`, value: `${Math.round(coreShare * 10) / 10}%`, met: coreShare < 20 },
        { what: 'under 100 MiB over the idle bot', value: `${Math.round(extraRss)} MiB`, met: extraRss < 100 },
      ],
    };
  } finally {
    await bot?.close();
    await fake.close();
    await emu.close();
  }
}
