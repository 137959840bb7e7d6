/** The reports render on Slack within its limits (the Discord and terminal renderers read the same Message). */
import { describe, expect, it } from 'vitest';
import { toBlockKit } from '../../src/chat/slack/index.js';
import { buildBalanceReport } from '../../src/reports/balance-report.js';
import { buildChannelReport } from '../../src/reports/channel-report.js';
import type { HostedNode } from '../../src/hosting/index.js';
import type { BalanceData, ChannelLine } from '../../src/reports/types.js';

const now = new Date('2026-11-22T09:00:00Z');
const node = (i: number): HostedNode => ({ nodeId: `id-${i}`, name: `node-${i}`, network: 'regtest', status: 'RUNNING', invoke_url: 'http://x' });
const balance: BalanceData = {
  btc: { vanilla: { settled: 10n ** 8n, future: 10n ** 8n, spendable: 10n ** 8n }, colored: { settled: 5n, future: 5n, spendable: 5n } },
  ln: { local: 1n, sendable: 1n, receivable: 1n },
  assets: Array.from({ length: 15 }, (_, i) => ({ assetId: `rgb:${i}`, label: `TK${i}`, schema: 'Nia' as const, precision: 2, spendable: 1n, settled: 1n, outbound: 1n, inbound: 1n })),
};
const chan = (i: number): ChannelLine => ({
  channelId: `c${i}`, peer: `peer-${i}`, peerPubkey: '02ab', state: 'usable', public: i % 2 === 0,
  capacitySat: 16_777_215n, localSat: 1_000n, sendableSat: 900n, receivableSat: 16_000_000n,
  asset: { assetId: 'rgb:x', label: 'LONGTICKERNAME', precision: 8, local: 10n ** 15n, remote: 10n ** 15n },
});

describe('reports on Slack', () => {
  for (const count of [1, 3, 12]) {
    it(`render a balance and a channel report for ${count} node(s) within Slack's limits`, () => {
      const b = buildBalanceReport({ target: count === 1 ? 'node-0' : 'all', unit: 'sat', now, nodes: Array.from({ length: count }, (_, i) => ({ outcome: { ok: true as const, node: node(i), data: balance } })) });
      const c = buildChannelReport({
        target: count === 1 ? 'node-0' : 'all', unit: 'sat', now, thresholds: { low: 0.2, high: 0.8 },
        nodes: Array.from({ length: count }, (_, i) => ({ outcome: { ok: true as const, node: node(i), data: { channels: Array.from({ length: 45 }, (_, k) => chan(k)) } } })),
      });
      for (const m of [b.message, c.message]) {
        const kit = toBlockKit(m);
        expect(kit.blocks.length).toBeLessThanOrEqual(50);
        expect(JSON.stringify(kit.blocks)).not.toMatch(/more blocks? not shown/);
      }
    });
  }
});
