/**
 * `npx tsx test/bench/idle-rss.ts [--runs N] [--no-build] [--burst N] [--variant 'label|distDir|args'...]`
 *
 * The bot's idle RSS as the intake benchmark measures it (a fresh routed bot in Slack HTTP
 * mode against the fake Slack, RSS read 5 s after /healthz answers, before any event), for
 * several variants in alternating order, `runs` times each: RSS varies by several MiB from
 * one start to the next, so only alternating repeats tell two builds or two flags apart.
 * A variant is a label, a compiled tree (default this worktree's dist/) and words that are
 * node flags (`--max-semi-space-size=4`), environment (`MALLOC_ARENA_MAX=2`) or `deployed`
 * (the Dockerfile's flags and environment, as the intake benchmark starts the bot; without it
 * a variant has only its own). No variant: this worktree's dist/, as deployed.
 * With --burst N, each bot is then sent N events (closed loop, 16 connections) and its RSS is
 * read again 30 s later, as the intake benchmark's memory figure is. With --gc as well, the bot
 * runs with --trace-gc-nvp and the burst's collections are summed per event: scavenges, bytes
 * that survived a scavenge or were promoted (counts the machine's load does not move), and
 * full collections.
 * Prints each run, then the median RSS, V8 heap total and anonymous memory per variant.
 * For comparing builds; not part of `npm run bench`.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startEmulator } from '../../src/emulator/index.js';
import { startFakeSlack } from '../fakes/slack/index.js';
import { buildBot, pinSelf, root, startBotProcess, startLoadProcess, type LoadProcess } from './processes.js';
import { botEnv, createNodes, median, round, signer, watchEveryNode, CHANNEL } from './webhook-intake.js';
import { openDatabase } from '../../src/store/index.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '4' },
    'no-build': { type: 'boolean', default: false },
    variant: { type: 'string', multiple: true },
    settle: { type: 'string', default: '5000' },
    burst: { type: 'string', default: '0' },
    gc: { type: 'boolean', default: false },
  },
});

interface Variant {
  label: string;
  dist: string;
  deployed: boolean;
  nodeArgs: string[];
  env: Record<string, string>;
}
const variants: Variant[] = (values.variant?.length ? values.variant : ['this||deployed']).map((v) => {
  const [label, dist, args = ''] = v.split('|');
  const words = args.split(/\s+/).filter(Boolean);
  return {
    label,
    dist: dist || `${root}dist`,
    deployed: words.includes('deployed'),
    nodeArgs: words.filter((w) => w.startsWith('-')),
    env: Object.fromEntries(words.filter((w) => w.includes('=') && !w.startsWith('-')).map((w) => w.split('=', 2) as [string, string])),
  };
});

function proc(pid: number): { rss: number; anon: number; file: number } {
  const s = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k: string) => Number(s.match(new RegExp(`${k}:\\s+(\\d+)`))?.[1] ?? NaN) / 1024;
  return { rss: kb('VmRSS'), anon: kb('RssAnon'), file: kb('RssFile') };
}
async function heap(url: string): Promise<number> {
  const text = await fetch(`${url}/metrics`).then(
    (r) => r.text(),
    () => '',
  );
  return Number(text.match(/^\w*nodejs_heap_size_total_bytes (\S+)/m)?.[1] ?? NaN) / 2 ** 20;
}
/** The --trace-gc-nvp lines of a burst, summed per event. */
function gcSummary(log: string, events: number): string {
  let scavenges = 0;
  let full = 0;
  let survived = 0;
  let promoted = 0;
  for (const line of log.split('\n')) {
    const kind = line.match(/ gc=(\w+)/)?.[1];
    if (!kind) continue;
    if (kind === 's') {
      scavenges++;
      survived += Number(line.match(/ new_space_survived=(\d+)/)?.[1] ?? 0);
      promoted += Number(line.match(/ promoted=(\d+)/)?.[1] ?? 0);
    } else full++;
  }
  return `scavenges ${scavenges}, survived ${(survived / events).toFixed(0)} B/event, promoted ${(promoted / events).toFixed(0)} B/event, full collections ${full}`;
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

if (!values['no-build']) buildBot();
pinSelf();
const dir = mkdtempSync(join(tmpdir(), 'rln-idle-'));
const emulator = await startEmulator({ seed: 'none', lifecycleDelayMs: 5 });
const slack = await startFakeSlack();
const burst = Number(values.burst);
const load: LoadProcess | undefined = burst ? await startLoadProcess() : undefined;
const results = new Map<string, Array<{ rss: number; anon: number; file: number; heap: number; settled?: number }>>();
try {
  const sign = signer(emulator, await createNodes(emulator, 50));
  for (let run = 0; run < Number(values.runs); run++) {
    // Alternating, and the order reversed every other round.
    const order = run % 2 ? [...variants].reverse() : variants;
    for (const v of order) {
      const dbPath = join(dir, `${v.label}-${run}.db`);
      const db = openDatabase(dbPath);
      await watchEveryNode(db, CHANNEL);
      await db.close();
      const logFile = join(dir, `${v.label}-${run}.log`);
      const bot = await startBotProcess({
        logFile,
        nodeArgs: values.gc ? [...v.nodeArgs, '--trace-gc-nvp'] : v.nodeArgs,
        cli: `${v.dist}/src/cli/main.js`,
        asDeployed: v.deployed,
        env: { ...botEnv(emulator, slack, dbPath), ...v.env },
      });
      try {
        await sleep(Number(values.settle));
        const p = proc(bot.pid);
        const h = await heap(bot.url);
        let settled: number | undefined;
        let settledDetail = '';
        let gcLine = '';
        if (load) {
          const from = statSync(logFile).size;
          const r = await load.run({ kind: 'closed', url: bot.url, requests: sign(burst), concurrency: 16 });
          if (values.gc) gcLine = `\n    ${gcSummary(readFileSync(logFile, 'utf8').slice(from), burst)}`;
          if (r.failed) process.stdout.write(`${r.failed} requests failed\n`);
          await sleep(30_000);
          const q = proc(bot.pid);
          settled = q.rss;
          settledDetail = `, anon ${q.anon.toFixed(1)}, heap ${(await heap(bot.url)).toFixed(1)}`;
        }
        const row = { ...p, heap: h, settled };
        (results.get(v.label) ?? results.set(v.label, []).get(v.label)!).push(row);
        const after =
          settled === undefined
            ? ''
            : `  30 s after the burst ${settled.toFixed(1)} (${(((settled - p.rss) / p.rss) * 100).toFixed(0)}%${settledDetail})`;
        process.stdout.write(
          `${run} ${v.label.padEnd(12)} rss ${p.rss.toFixed(1)}  anon ${p.anon.toFixed(1)}  file ${p.file.toFixed(1)}  heap ${h.toFixed(1)}${after}${gcLine}\n`,
        );
      } finally {
        await bot.close();
      }
    }
  }
  const summary = Object.fromEntries(
    [...results].map(([label, rows]) => [
      label,
      {
        rss_median: round(median(rows.map((r) => r.rss)), 1),
        rss_all: rows.map((r) => round(r.rss)).join(' '),
        anon_median: round(median(rows.map((r) => r.anon)), 1),
        heap_median: round(median(rows.map((r) => r.heap)), 1),
        ...(load ? { settled_over_idle_pct: rows.map((r) => round(((r.settled! - r.rss) / r.rss) * 100)).join(' ') } : {}),
      },
    ]),
  );
  process.stdout.write(`${JSON.stringify({ load: os.loadavg()[0].toFixed(2), summary }, null, 2)}\n`);
} finally {
  await load?.close();
  await slack.close();
  await emulator.close();
  rmSync(dir, { recursive: true, force: true });
}
