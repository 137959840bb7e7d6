/**
 * A balance report over 500 emulated nodes, each answering with 50 ms of latency:
 * wall time and the bot's peak memory. The emulator runs in its own process.
 */
import { createHostingClient, type HostedNode } from '../../src/hosting/index.js';
import { createNodeApiClient } from '../../src/node-api/index.js';
import { createReports } from '../../src/reports/index.js';
import { openDatabase } from '../../src/store/index.js';
import { silentLogger } from '../../src/log.js';
import type { OutboxItem } from '../../src/vocabulary/chat.js';
import type { Services } from '../../commands/services.js';
import { startEmulatorProcess } from './emulator-process.js';
import { DEFAULT_INDEXER } from '../../src/emulator/index.js';
import type { BenchResult } from './types.js';

async function mapLimited<T>(items: T[], limit: number, fn: (t: T) => Promise<unknown>): Promise<void> {
  let i = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (i < items.length) await fn(items[i++]);
    }),
  );
}

export async function reportsManyNodes(opts: { nodes: number; latencyMs: number }): Promise<BenchResult> {
  const emu = await startEmulatorProcess(['--seed', 'none', '--delay', '10', '--latency', String(opts.latencyMs)]);
  try {
    const hosting = createHostingClient({ baseUrl: emu.url, token: emu.token, timeoutMs: 30_000 });
    const api = (n: HostedNode) => createNodeApiClient({ baseUrl: n.invoke_url!, credentials: { kind: 'token', token: emu.nodeApiToken } });
    // Set up: create, then init and unlock every node (as a team would have them).
    await mapLimited(
      Array.from({ length: opts.nodes }, (_, i) => `n${String(i).padStart(3, '0')}`),
      64,
      (name) => hosting.createNode({ name, network: 'regtest' }),
    );
    let nodes = await hosting.listNodes();
    while (nodes.some((n) => n.status !== 'RUNNING')) {
      await new Promise((r) => setTimeout(r, 100));
      nodes = await hosting.listNodes();
    }
    await mapLimited(nodes, 64, async (n) => {
      await api(n).init({ password: 'bench-password' });
      // The emulator's nodes run the newest image (6887cbf), whose unlock names its indexer.
      await api(n).unlock({ password: 'bench-password', indexer_url: DEFAULT_INDEXER });
    });

    const services = { hosting, nodeApi: api, now: () => Date.now() } as unknown as Services;
    const posted: OutboxItem[] = [];
    const reports = createReports({
      db: openDatabase(':memory:'),
      services,
      outbox: { enqueue: async (i) => void posted.push(i) },
      logger: silentLogger,
    });
    let peak = process.memoryUsage().rss;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
    const before = process.memoryUsage().rss;
    const t0 = performance.now();
    const result = await reports.service.balance('all');
    const wallMs = performance.now() - t0;
    clearInterval(sampler);
    // The message summarises (a chat message has a size limit); the counts say who answered.
    const reported = result.answered;
    return {
      name: 'reports over many nodes',
      figures: {
        nodes: opts.nodes,
        node_latency_ms: opts.latencyMs,
        wall_s: Math.round(wallMs / 100) / 10,
        nodes_answered: reported,
        nodes_failed: result.failed,
        rss_before_mib: Math.round(before / 2 ** 20),
        peak_rss_mib: Math.round(peak / 2 ** 20),
      },
      targets: [
        { what: 'wall time < 10 s', met: wallMs < 10_000 },
        { what: 'every node answered', met: reported === opts.nodes },
      ],
    };
  } finally {
    await emu.close();
  }
}
