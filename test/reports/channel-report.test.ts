import { describe, expect, it } from 'vitest';
import { buildChannelReport, toChannelSnapshot, isFlagged } from '../../src/reports/channel-report.js';
import type { ChannelData, ChannelLine } from '../../src/reports/types.js';
import type { HostedNode } from '../../src/hosting/index.js';
import type { Block, Table } from '../../src/vocabulary/message.js';

const node: HostedNode = { nodeId: 'id-alice', name: 'alice', network: 'regtest', status: 'RUNNING', invoke_url: 'http://x' };
const now = new Date('2026-11-22T09:00:00Z');
const t = { low: 0.2, high: 0.8 };

function chan(id: string, over: Partial<ChannelLine> = {}): ChannelLine {
  return {
    channelId: id,
    peer: `peer-${id}`,
    peerPubkey: `02${id}`,
    state: 'usable',
    public: true,
    capacitySat: 100_000n,
    localSat: 50_000n,
    sendableSat: 49_000n,
    receivableSat: 48_000n,
    ...over,
  };
}

const tableOf = (blocks: Block[]) => (blocks.find((b) => b.type === 'table') as { type: 'table'; table: Table }).table;

describe('channel report', () => {
  it('has one row per channel with state mark, share bar, asset amounts with precision and a private mark', () => {
    const d: ChannelData = {
      network: 'Regtest',
      height: 10n,
      channels: [
        chan('a'),
        chan('b', {
          state: 'opening',
          public: false,
          localSat: 95_000n,
          asset: { assetId: 'rgb:x', label: 'USDT', precision: 2, local: 12345n, remote: 5n },
        }),
        chan('c', { state: 'not_usable', localSat: 10_000n }),
        chan('d', { state: 'closing' }),
      ],
    };
    const { message } = buildChannelReport({
      target: 'alice',
      unit: 'sat',
      thresholds: t,
      now,
      nodes: [{ outcome: { ok: true, node, data: d } }],
    });
    const table = tableOf(message.blocks);
    expect(table.rows).toHaveLength(4);
    expect(table.rows.map((r) => r[0])).toEqual(['●', '○', '◐', '✕']);
    expect(table.rows[1][6]).toBe('USDT 123.45/0.05');
    expect(table.rows[1][7]).toBe('P !high');
    expect(table.rows[2][7]).toBe('!low');
    expect(table.rows[0][5]).toMatch(/50%$/);
    expect(table.rows[0][2]).toBe('100,000');
    const text = JSON.stringify(message.blocks);
    expect(text).toContain('4 channel(s): 1 usable, 1 not usable, 1 opening, 1 closing');
    expect(text).toContain('2 flagged');
    expect(message.tone).toBe('warning');
  });

  it('uses configurable thresholds', () => {
    expect(isFlagged(chan('a', { localSat: 30_000n }), { low: 0.2, high: 0.8 })).toBeUndefined();
    expect(isFlagged(chan('a', { localSat: 30_000n }), { low: 0.3, high: 0.9 })).toBe('low');
  });

  it('flags at exactly the thresholds, and not just inside them', () => {
    const big = (localSat: bigint) => chan('a', { capacitySat: 1_000_000n, localSat });
    expect(isFlagged(big(200_000n), t)).toBe('low');
    expect(isFlagged(big(200_001n), t)).toBeUndefined();
    expect(isFlagged(big(200_050n), t)).toBeUndefined();
    expect(isFlagged(big(800_000n), t)).toBe('high');
    expect(isFlagged(big(799_999n), t)).toBeUndefined();
    expect(isFlagged(chan('a', { capacitySat: 0n, localSat: 0n }), t)).toBeUndefined();
  });

  it('shows channels opened and closed since the previous report', () => {
    const prev = {
      takenAt: new Date('2026-11-21T09:00:00Z'),
      data: toChannelSnapshot({ channels: [chan('a'), chan('gone', { peer: 'old-peer' })] }),
    };
    const d: ChannelData = { channels: [chan('a', { sendableSat: 40_000n }), chan('new', { peer: 'new-peer' })] };
    const { message } = buildChannelReport({
      target: 'alice',
      unit: 'sat',
      thresholds: t,
      now,
      nodes: [{ outcome: { ok: true, node, data: d }, previous: prev }],
    });
    const text = JSON.stringify(message.blocks);
    expect(text).toContain('opened 1 (new-peer)');
    expect(text).toContain('closed 1 (old-peer)');
    expect(text).toContain('sendable −9,000 sats');
  });

  it('caps the table at 40 rows and says so', () => {
    const d: ChannelData = { channels: Array.from({ length: 55 }, (_, i) => chan(String(i))) };
    const { message } = buildChannelReport({
      target: 'alice',
      unit: 'sat',
      thresholds: t,
      now,
      nodes: [{ outcome: { ok: true, node, data: d } }],
    });
    const table = tableOf(message.blocks);
    expect(table.rows).toHaveLength(40);
    expect(table.caption).toContain('showing 40 of 55');
  });
});

describe('channel report over many nodes', () => {
  it('gives each node one overview row with its counts and totals', () => {
    const nodes = Array.from({ length: 10 }, (_, i) => ({
      outcome: {
        ok: true as const,
        node: { ...node, nodeId: `id-${i}`, name: `n${i}` },
        data: { channels: [chan(`a${i}`), chan(`b${i}`, { localSat: 5_000n })] },
      },
    }));
    const { message } = buildChannelReport({ target: 'all', unit: 'sat', thresholds: t, now, nodes });
    const table = tableOf(message.blocks);
    expect(table.rows).toHaveLength(10);
    expect(table.rows[0]).toEqual(['n0', '2', '2', '200,000', '98,000', '96,000', '1', '']);
    expect(JSON.stringify(message.blocks)).toContain('20 channel(s)');
    expect(message.blocks.length).toBeLessThan(10);
  });
});
