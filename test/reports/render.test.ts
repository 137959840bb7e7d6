/** The reports render on Slack, Discord and the terminal within their limits, from the same Message. */
import { describe, expect, it } from 'vitest';
import { toBlockKit } from '../../src/chat/slack/index.js';
import { toDiscordPayload } from '../../src/chat/discord/index.js';
import { renderText } from '../../src/chat/shell/index.js';
import { buildBalanceReport } from '../../src/reports/balance-report.js';
import { buildChannelReport } from '../../src/reports/channel-report.js';
import type { HostedNode } from '../../src/hosting/index.js';
import type { Message } from '../../src/vocabulary/message.js';
import type { BalanceData, ChannelLine } from '../../src/reports/types.js';

const now = new Date('2026-11-22T09:00:00Z');
const node = (i: number): HostedNode => ({
  nodeId: `id-${i}`,
  name: `node-${i}`,
  network: 'regtest',
  status: 'RUNNING',
  invoke_url: 'http://x',
});
const balance = (assets: number): BalanceData => ({
  network: 'Regtest',
  height: 840_000n,
  btc: {
    vanilla: { settled: 123_456_789n, future: 123_556_789n, spendable: 123_456_789n },
    colored: { settled: 162_500n, future: 162_500n, spendable: 162_500n },
  },
  ln: { local: 1_500_000n, sendable: 1_400_000n, receivable: 2_500_000n },
  assets: Array.from({ length: assets }, (_, i) => ({
    assetId: `rgb:${i}`,
    label: `TK${i}`,
    schema: 'Nia' as const,
    precision: 2,
    spendable: 123_456n,
    settled: 123_456n,
    outbound: 50_000n,
    inbound: 1_000n,
  })),
});
const chan = (i: number): ChannelLine => ({
  channelId: `c${i}`,
  peer: `peer-${i}`,
  peerPubkey: '02ab',
  state: 'usable',
  public: i % 2 === 0,
  capacitySat: 1_000_000n,
  localSat: 100_000n,
  sendableSat: 90_000n,
  receivableSat: 880_000n,
  asset: { assetId: 'rgb:x', label: 'USDT', precision: 2, local: 123_456n, remote: 50_000n },
});

function reportsFor(nodes: number, assets: number, channels: number): Message[] {
  const target = nodes === 1 ? 'node-0' : 'all';
  const b = buildBalanceReport({
    target,
    unit: 'sat',
    now,
    nodes: Array.from({ length: nodes }, (_, i) => ({ outcome: { ok: true as const, node: node(i), data: balance(assets) } })),
  });
  const c = buildChannelReport({
    target,
    unit: 'sat',
    now,
    thresholds: { low: 0.2, high: 0.8 },
    nodes: Array.from({ length: nodes }, (_, i) => ({
      outcome: { ok: true as const, node: node(i), data: { channels: Array.from({ length: channels }, (_, k) => chan(k)) } },
    })),
  });
  return [b.message, c.message];
}

describe('reports render on every platform', () => {
  // A typical team: a few nodes, two assets, a handful of channels each: nothing is cut.
  for (const nodes of [1, 3, 12]) {
    it(`a balance and a channel report for ${nodes} node(s) fit Slack, Discord and the terminal whole`, () => {
      for (const m of reportsFor(nodes, 2, 4)) {
        const kit = toBlockKit(m);
        expect(kit.blocks.length).toBeLessThanOrEqual(50);
        expect(JSON.stringify(kit.blocks)).not.toMatch(/not shown|more rows?\b/);
        const discord = JSON.stringify(toDiscordPayload(m));
        expect(discord).not.toMatch(/not shown|truncated|more rows?\b/);
        const text = renderText(m);
        expect(text).toContain(nodes === 1 ? 'node-0' : 'Team');
        const widest = Math.max(...text.split('\n').map((l) => [...l].length));
        expect(widest).toBeLessThanOrEqual(120);
      }
    });
  }

  it('a node with many channels and assets is cut visibly, never silently', () => {
    for (const m of reportsFor(1, 15, 45)) {
      const kit = toBlockKit(m);
      expect(kit.blocks.length).toBeLessThanOrEqual(50);
      expect(JSON.stringify(m.blocks)).toMatch(/showing 40 of/);
    }
  });
});
