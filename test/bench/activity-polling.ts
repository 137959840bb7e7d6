/**
 * Activity polling: the bot (its own process, `src/cli/main.ts start` through tsx's loader, with the
 * Dockerfile's node flags and malloc settings: the deployed start's V8 and glibc settings) polling `nodes`
 * emulated nodes (the emulator in its own process, every node initialised and unlocked, so each
 * poll makes the full set of calls), all on 127.0.0.1.
 *
 * Bounded in time: the interval is scaled down (`intervalS`, e.g. 3 s for the real 30 s) and the
 * figures are reported per poll pass, then per minute at the real interval. Baseline: the same
 * bot process, in the same run, while no watch hears activity (it polls nothing), measured over
 * as many seconds. Then:
 *   - CPU time per pass (utime + stime of the bot, /proc), and the share of one core at 30 s, with
 *     every kind on (issue 28: the watch kinds add listunspents and listpeers each poll, and the
 *     indexer and proxy checks and the backup facts every WATCH_SLOW_EVERY polls);
 *   - extra resident memory once polling, against the idle bot;
 *   - the delay from a payment (a keysend that fails: a `payment failed` alert) to its alert
 *     on the bot's terminal, against the interval (target: within the interval + 2 s).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NotifyStore, openDatabase } from '../../src/store/index.js';
import { unlockBody } from '../../src/emulator/node-api/world.js';
import { startEmulatorProcess } from './emulator-process.js';
import { cpuMs, deployedStart, freePort, procTree as tree } from './processes.js';
import type { BenchResult } from './types.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const REAL_INTERVAL_S = 30;
/** Every kind a watch may hear (commands/watch.ts's WATCH_KINDS). */
const EVERY_KIND = 'status,payments,channels,transfers,deposits,liquidity,lock,utxos,infra,liveness,peers,backup';

/** Resident memory of the bot's processes, in MiB. */
function rssMiB(pid: number): number {
  return tree(pid).reduce((sum, p) => sum + Number(readFileSync(`/proc/${p}/status`, 'utf8').match(/VmRSS:\s+(\d+)/)?.[1] ?? 0) / 1024, 0);
}
/** Resident memory split by kind (/proc/<pid>/smaps_rollup), in MiB, summed over the bot's processes: anonymous (heaps, malloc) and file-backed (code, mapped files). */
function rssKinds(pid: number): { anon: number; file: number } {
  let anon = 0;
  let file = 0;
  for (const p of tree(pid)) {
    const t = readFileSync(`/proc/${p}/smaps_rollup`, 'utf8');
    const kb = (k: string) => Number(t.match(new RegExp(`^${k}:\\s+(\\d+)`, 'm'))?.[1] ?? 0);
    anon += kb('Anonymous') / 1024;
    file += (kb('Rss') - kb('Anonymous')) / 1024;
  }
  return { anon, file };
}
/** From the bot's /metrics (prom-client's default metrics), read AFTER the RSS figures so the scrape does not weigh on them: V8's heap and the memory outside it, in MiB. */
async function heapKinds(url: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const v = (name: string) => Number(text.match(new RegExp(`^${name} (\\S+)`, 'm'))?.[1] ?? NaN) / 2 ** 20;
  const spaces: Record<string, number> = {};
  for (const m of text.matchAll(/^nodejs_heap_space_size_total_bytes\{space="(\w+)"\} (\S+)/gm)) spaces[m[1]] = Number(m[2]) / 2 ** 20;
  return {
    heap_total: v('nodejs_heap_size_total_bytes'),
    heap_used: v('nodejs_heap_size_used_bytes'),
    external: v('nodejs_external_memory_bytes'),
    new_space: spaces.new ?? NaN,
    old_space: spaces.old ?? NaN,
  };
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function activityPolling(o: { nodes: number; intervalS: number; passes: number }): Promise<BenchResult> {
  const emu = await startEmulatorProcess(['--seed', 'none', '--delay', '50']);
  const auth = { authorization: `Bearer ${emu.token}`, 'content-type': 'application/json' };
  const dir = mkdtempSync(join(tmpdir(), 'rln-bench-activity-'));
  const dbPath = join(dir, 'bot.db');
  try {
    // 500 nodes, RUNNING, initialised and unlocked (a few at a time, as a user would).
    const ids: string[] = [];
    for (let i = 0; i < o.nodes; i += 25) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(25, o.nodes - i) }, async (_, j) => {
          const r = await fetch(`${emu.url}/api/nodes`, {
            method: 'POST',
            headers: auth,
            body: JSON.stringify({ name: `n${i + j}`, network: 'regtest' }),
          });
          return ((await r.json()) as { data: { nodeId: string } }).data.nodeId;
        }),
      );
      ids.push(...batch);
    }
    let nodes: Array<{ nodeId: string; status: string; invoke_url?: string }> = [];
    for (;;) {
      nodes = ((await (await fetch(`${emu.url}/api/nodes`, { headers: auth })).json()) as { nodes: typeof nodes }).nodes;
      if (nodes.every((n) => n.status === 'RUNNING')) break;
      await sleep(200);
    }
    const nodeAuth = { authorization: `Bearer ${emu.nodeApiToken}`, 'content-type': 'application/json' };
    const nodeCall = (n: { invoke_url?: string }, endpoint: string, body: unknown) =>
      fetch(`${n.invoke_url!.replace(/\/$/, '')}/${endpoint}`, { method: 'POST', headers: nodeAuth, body: JSON.stringify(body) });
    // New nodes run the latest image (6887cbf): its unlock takes the chain sync and indexer too. An
    // unlock that fails would leave the nodes locked, answering 403 at once: the cost of locked
    // nodes, not of polling. So every unlock must succeed.
    let unlocked = 0;
    for (let i = 0; i < nodes.length; i += 25) {
      await Promise.all(
        nodes.slice(i, i + 25).map(async (n) => {
          await nodeCall(n, 'init', { password: 'bench-password' });
          const r = await nodeCall(n, 'unlock', unlockBody('6887cbf', 'bench-password'));
          // Free colourable UTXOs, as a node in use has: without them every node raises a `utxos`
          // alert on its first poll, and the bench would measure a 500-alert storm, not polling.
          const u = await nodeCall(n, 'createutxos', { num: 4, size: 32_500, fee_rate: 5, skip_sync: true });
          if (r.ok && u.ok) unlocked++;
        }),
      );
    }
    if (unlocked !== nodes.length) throw new Error(`only ${unlocked} of ${nodes.length} nodes unlocked with free UTXOs`);

    // One watch of all nodes in the terminal, status only for now (the baseline polls nothing).
    const db = openDatabase(dbPath);
    const store = new NotifyStore(db);
    const watch = (kinds: string | null) =>
      store.upsertWatch({
        platform: 'shell',
        channel_id: 'terminal',
        workspace_id: null,
        target: 'all',
        target_name: null,
        statuses: null,
        kinds,
        min_amount_msat: null,
        escalate_after_min: null,
        pagerduty_key: null,
        created_by: 'bench',
        created_at: Date.now(),
      });
    await watch(null);

    const botPort = await freePort();
    const botUrl = `http://127.0.0.1:${botPort}`;
    // The Dockerfile's flags (its young generation and heap growth: what the memory figures depend
    // on), one process, the TypeScript loaded by tsx's loader.
    const deployed = deployedStart();
    const child = spawn(process.execPath, [...deployed.nodeArgs, '--import', 'tsx', `${root}src/cli/main.ts`, 'start'], {
      cwd: root,
      env: {
        ...deployed.env,
        PATH: process.env.PATH ?? '',
        PORT: String(botPort),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        DATABASE_PATH: dbPath,
        SERVICE_URL: emu.url,
        SERVICE_API_TOKEN: emu.token,
        NODE_API_TOKEN: emu.nodeApiToken,
        POLL_INTERVAL_S: String(o.intervalS),
        WATCH_INDEXER_URL: '127.0.0.1:50001',
        WATCH_PROXY_ENDPOINT: 'rpc://127.0.0.1:3000/json-rpc',
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    try {
      for (let t = 0; !/\$ |ready|rln/.test(out) && t < 200; t++) await sleep(100);
      await sleep(3_000); // start-up settles
      const pid = child.pid!;
      const windowMs = o.passes * o.intervalS * 1000;

      const c0 = cpuMs(pid);
      await sleep(windowMs);
      const idleCpu = cpuMs(pid) - c0;
      const idleRss = rssMiB(pid);
      const idleKinds = rssKinds(pid);
      const idleHeap = await heapKinds(botUrl);

      // Every kind on (issue 28): the activity kinds and the watch kinds, with an indexer and a proxy to check.
      await watch(EVERY_KIND);
      await sleep(o.intervalS * 1000 * 2); // the first passes only record
      const c1 = cpuMs(pid);
      await sleep(windowMs);
      const pollCpu = cpuMs(pid) - c1;
      const pollRss = rssMiB(pid);
      const pollKinds = rssKinds(pid);
      const pollHeap = await heapKinds(botUrl);

      // The delay from a payment to its alert: a keysend from n0 that fails (no channel).
      const n0 = nodes.find((n) => n.nodeId === ids[0])!;
      const before = (out.match(/payment failed/g) ?? []).length;
      const t0 = Date.now();
      await nodeCall(n0, 'keysend', { dest_pubkey: `02${'ab'.repeat(32)}`, amt_msat: 1_000_000 });
      let alertMs = NaN;
      for (let t = 0; t < (o.intervalS + 10) * 20; t++) {
        if ((out.match(/payment failed/g) ?? []).length > before) {
          alertMs = Date.now() - t0;
          break;
        }
        await sleep(50);
      }

      // Not seen: what the bot said last, to tell a slow outbox from a missed poll.
      if (Number.isNaN(alertMs)) process.stderr.write(`activity: no payment alert; the bot's last output:\n${out.slice(-3000)}\n`);
      const perPassMs = (pollCpu - idleCpu) / o.passes;
      const coreShareAt30s = perPassMs / (REAL_INTERVAL_S * 1000);
      const extraMiB = pollRss - idleRss;
      return {
        name: 'activity',
        figures: {
          nodes: o.nodes,
          kinds: EVERY_KIND,
          // The slower checks (indexer, proxy, the transfers' refresh, the backup facts) come every
          // WATCH_SLOW_EVERY (default 10) polls of a node: `passes` at 10 holds each once.
          passes: o.passes,
          scaled_interval_s: o.intervalS,
          idle_cpu_ms_per_interval: Math.round(idleCpu / o.passes),
          polling_cpu_ms_per_pass: Math.round(pollCpu / o.passes),
          extra_cpu_ms_per_pass: Math.round(perPassMs),
          cpu_ms_per_minute_at_30s: Math.round(perPassMs * (60 / REAL_INTERVAL_S)),
          core_share_at_30s_pct: Math.round(coreShareAt30s * 1000) / 10,
          idle_rss_mib: Math.round(idleRss),
          polling_rss_mib: Math.round(pollRss),
          extra_rss_mib: Math.round(extraMiB),
          // Where the extra is: anonymous vs file-backed RSS, and within the anonymous, V8's heap vs the rest (malloc: sockets, TLS, SQLite).
          extra_anon_rss_mib: Math.round(pollKinds.anon - idleKinds.anon),
          extra_file_rss_mib: Math.round(pollKinds.file - idleKinds.file),
          ...Object.fromEntries(Object.keys(pollHeap).map((k) => [`extra_${k}_mib`, Math.round((pollHeap[k] - idleHeap[k]) * 10) / 10])),
          idle_heap_total_mib: Math.round(idleHeap.heap_total),
          polling_heap_total_mib: Math.round(pollHeap.heap_total),
          payment_to_alert_ms: Number.isNaN(alertMs) ? 'not seen' : alertMs,
        },
        targets: [
          { what: `polling ${o.nodes} nodes every 30 s costs under 15% of one core`, met: coreShareAt30s < 0.15 },
          { what: 'under 50 MiB extra memory against the idle bot', met: extraMiB < 50 },
          { what: `payment to alert within the interval + 2 s (${o.intervalS} s + 2 s here)`, met: alertMs <= (o.intervalS + 2) * 1000 },
        ],
      };
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      void db.close();
    }
  } finally {
    await emu.close();
  }
}
