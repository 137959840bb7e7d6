/**
 * The history of a report over many nodes, as one chart: the account's totals and each node's
 * overall local share, bucketed by hour with each node's latest snapshot carried forward.
 */
import { describe, expect, it } from 'vitest';
import { accountBalanceHistory, nodeShareHistory } from '../../src/reports/charts/account-history.js';
import { balanceChartSpec, channelChartSpec } from '../../src/reports/charts/history-charts.js';
import { renderChart } from '../../src/reports/charts/render-chart.js';
import type { BalanceSnapshot } from '../../src/reports/balance-report.js';
import type { ChannelSnapshot } from '../../src/reports/channel-report.js';
import { reportCharts } from '../../src/reports/charts/report-charts.js';
import { createSnapshotRepo, openDatabase } from '../../src/store/index.js';
import { silentLogger } from '../../src/log.js';
import { readPng } from '../support/decode-png.js';

const at = (h: number, m = 0) => new Date(Date.UTC(2026, 10, 1, h, m));
const bal = (onchain: number, local: number, asset?: number): BalanceSnapshot => ({
  values: {
    'btc.vanilla.settled': String(onchain),
    'ln.local': String(local),
    ...(asset === undefined ? {} : { 'asset:rgb:x:spendable': String(asset) }),
  },
  labels: asset === undefined ? {} : { 'asset:rgb:x:spendable': { label: 'USDT spendable', precision: 2 } },
});

describe('account history', () => {
  it('sums the nodes per hour, carrying a node not reported in that hour forward', () => {
    const a = [
      { takenAt: at(9, 5), data: bal(100, 10, 500) },
      { takenAt: at(11, 1), data: bal(150, 20, 700) },
    ];
    const b = [
      { takenAt: at(9, 40), data: bal(1000, 0) },
      { takenAt: at(10, 2), data: bal(900, 5) },
    ];
    const sum = accountBalanceHistory([a, b]);
    expect(sum.map((p) => p.takenAt.toISOString())).toEqual([at(9, 40), at(10, 2), at(11, 1)].map((d) => d.toISOString()));
    expect(sum.map((p) => p.data.values['btc.vanilla.settled'])).toEqual(['1100', '1000', '1050']); // a's 9:05 carried into 10:00, b's 10:02 into 11:00
    expect(sum.map((p) => p.data.values['ln.local'])).toEqual(['10', '15', '25']);
    expect(sum[2].data.values['asset:rgb:x:spendable']).toBe('700');
    expect(sum[0].data.labels['asset:rgb:x:spendable'].label).toBe('USDT spendable');
  });

  it('makes each node one line of its channels together', () => {
    const ch = (local: number, capacity: number): ChannelSnapshot['channels'][string] => ({
      peer: 'p',
      capacity: String(capacity),
      local: String(local),
      sendable: '0',
      receivable: '0',
      state: 'usable',
    });
    const h = nodeShareHistory([
      { nodeId: 'n1', name: 'alice', history: [{ takenAt: at(9), data: { channels: { c1: ch(30, 100), c2: ch(70, 100) } } }] },
      { nodeId: 'n2', name: 'bob', history: [{ takenAt: at(10), data: { channels: { c3: ch(10, 100) } } }] },
    ]);
    expect(h).toHaveLength(2);
    expect(h[1].data.channels.n1).toMatchObject({ peer: 'alice', local: '100', capacity: '200' });
    expect(h[1].data.channels.n2).toMatchObject({ peer: 'bob', local: '10', capacity: '100' });
    expect(h[0].data.channels.n2).toBeUndefined();
  });

  it('draws both as readable PNGs naming what they show', async () => {
    const nodes = Array.from({ length: 6 }, (_, i) => [
      { takenAt: at(8), data: bal(100 * i, 10) },
      { takenAt: at(12), data: bal(120 * i, 30) },
    ]);
    const spec = balanceChartSpec('all 6 nodes', accountBalanceHistory(nodes), { unit: 'sat', days: 7 })!;
    expect(JSON.stringify(spec)).toContain('Balances of all 6 nodes');
    const png = readPng((await renderChart(spec)).png);
    expect(png.width).toBeGreaterThan(400);
    const ch = (local: number): ChannelSnapshot => ({
      channels: { c: { peer: 'p', capacity: '100', local: String(local), sendable: '0', receivable: '0', state: 'usable' } },
    });
    const shares = nodeShareHistory(
      ['a', 'b', 'c', 'd', 'e'].map((name, i) => ({
        nodeId: name,
        name,
        history: [
          { takenAt: at(8), data: ch(10 * i) },
          { takenAt: at(12), data: ch(10 * i + 5) },
        ],
      })),
    );
    const cspec = channelChartSpec('5 nodes', shares, { days: 7, perNode: true })!;
    expect(JSON.stringify(cspec)).toContain('Local share of each of 5 nodes (its channels together)');
    expect(JSON.stringify(cspec)).toContain('"title":"node"');
    expect(readPng((await renderChart(cspec)).png).height).toBeGreaterThan(200);
  });
});

describe('a report over more nodes than are shown one by one', () => {
  it('carries one chart of them all, drawn from the stored snapshots', async () => {
    const db = openDatabase(':memory:');
    const snapshots = createSnapshotRepo(db);
    const nodes = Array.from({ length: 6 }, (_, i) => ({ nodeId: `n${i}`, name: `node-${i}` }));
    for (const n of nodes) {
      for (const h of [8, 12]) await snapshots.save({ nodeId: n.nodeId, kind: 'balance', takenAt: at(h), data: bal(1000 + h, 10 * h) });
    }
    const req = { kind: 'balance' as const, nodes: nodes as never[], unit: 'sat' as const, days: 7 as const, now: at(13) };
    const { files, notes } = await reportCharts(req, { snapshots, logger: silentLogger });
    expect(notes).toEqual([]);
    expect(files.map((f) => f.name)).toEqual(['balance-all-7d.png']);
    expect(files[0].title).toBe('Balances of all 6 nodes, last 7 days');
    expect(files[0].alt).toContain('the total of all 6 nodes');
    // Four nodes are still drawn one by one.
    const four = await reportCharts({ ...req, nodes: nodes.slice(0, 4) as never[] }, { snapshots, logger: silentLogger });
    expect(four.files.map((f) => f.name)).toEqual([
      'balance-node-0-7d.png',
      'balance-node-1-7d.png',
      'balance-node-2-7d.png',
      'balance-node-3-7d.png',
    ]);
    await db.close();
  });
});
