import { describe, expect, it } from 'vitest';
import { buildBalanceReport, balanceRows, balanceTable, toBalanceSnapshot } from '../../src/reports/balance-report.js';
import type { BalanceData, NodeOutcome } from '../../src/reports/types.js';
import type { HostedNode } from '../../src/hosting/index.js';
import type { Block, Table } from '../../src/vocabulary/message.js';

const node = (name: string): HostedNode => ({ nodeId: `id-${name}`, name, network: 'regtest', status: 'RUNNING', invoke_url: 'http://x' });

function data(over: Partial<BalanceData> = {}): BalanceData {
  return {
    network: 'Regtest',
    height: 1234n,
    btc: { vanilla: { settled: 100_000n, future: 150_000n, spendable: 90_000n }, colored: { settled: 0n, future: 0n, spendable: 0n } },
    ln: { local: 0n, sendable: 0n, receivable: 0n },
    assets: [
      { assetId: 'rgb:a', label: 'USDT', schema: 'Nia', precision: 2, spendable: 12345n, settled: 12345n, outbound: 0n, inbound: 0n },
    ],
    ...over,
  };
}

const tables = (blocks: Block[]): Table[] => blocks.flatMap((b) => (b.type === 'table' ? [b.table] : []));
const row = (t: Table, label: string) => t.rows.find((r) => r[0] === label);
const now = new Date('2026-11-22T09:00:00Z');

describe('balance report', () => {
  it('scales asset amounts by precision and leaves zero rows out', () => {
    const outcome: NodeOutcome<BalanceData> = { ok: true, node: node('alice'), data: data() };
    const { message } = buildBalanceReport({ target: 'alice', unit: 'sat', now, nodes: [{ outcome }] });
    const [t] = tables(message.blocks);
    expect(row(t, 'USDT spendable')?.[1]).toBe('123.45');
    expect(row(t, 'BTC pending')?.[1]).toBe('50,000');
    expect(row(t, 'Colored settled')).toBeUndefined();
    expect(row(t, 'LN local')).toBeUndefined();
    expect(message.header).toContain('alice');
    expect(JSON.stringify(message.blocks)).toContain('block 1,234');
  });

  it('gives two assets with one ticker their short ids, on a node and in the team total (P11)', () => {
    const twin = {
      assetId: 'rgb:twinTwinTwin-9',
      label: 'USDT',
      schema: 'Nia' as const,
      precision: 2,
      spendable: 5000n,
      settled: 5000n,
      outbound: 0n,
      inbound: 0n,
    };
    const outcome: NodeOutcome<BalanceData> = { ok: true, node: node('alice'), data: data({ assets: [...data().assets, twin] }) };
    const other: NodeOutcome<BalanceData> = { ok: true, node: node('bob'), data: data() };
    const { message } = buildBalanceReport({ target: 'all', unit: 'sat', now, nodes: [{ outcome }, { outcome: other }] });
    for (const t of tables(message.blocks).slice(0, 2)) {
      expect(row(t, 'USDT spendable · rgb:a')).toBeDefined();
      expect(row(t, 'USDT spendable · rgb:twinTwinTw…')?.[1]).toBe('50.00');
      expect(row(t, 'USDT spendable')).toBeUndefined();
    }
    // bob has one USDT: its rows stay as they were.
    expect(row(tables(message.blocks)[2], 'USDT spendable')?.[1]).toBe('123.45');
  });

  it('shows BTC amounts in BTC when asked', () => {
    const outcome: NodeOutcome<BalanceData> = { ok: true, node: node('alice'), data: data() };
    const { message } = buildBalanceReport({ target: 'alice', unit: 'btc', now, nodes: [{ outcome }] });
    expect(row(tables(message.blocks)[0], 'BTC settled')?.[1]).toBe('0.00100000');
  });

  it('shows the change since the previous snapshot, including an asset that is gone', () => {
    const before = data({
      assets: [
        ...data().assets,
        { assetId: 'rgb:b', label: 'GONE', schema: 'Nia', precision: 0, spendable: 7n, settled: 7n, outbound: 0n, inbound: 0n },
      ],
    });
    const prev = { takenAt: new Date('2026-11-21T09:00:00Z'), data: toBalanceSnapshot(balanceRows(before)) };
    const after = data({ btc: { ...before.btc, vanilla: { settled: 101_200n, future: 151_200n, spendable: 89_700n } } });
    const { message } = buildBalanceReport({
      target: 'alice',
      unit: 'sat',
      now,
      nodes: [{ outcome: { ok: true, node: node('alice'), data: after }, previous: prev }],
    });
    const [t] = tables(message.blocks);
    expect(t.columns.map((c) => c.header)).toContain('Change');
    expect(row(t, 'BTC settled')?.[2]).toBe('+1,200');
    expect(row(t, 'BTC spendable')?.[2]).toBe('−300');
    expect(row(t, 'USDT spendable')?.[2]).toBe('');
    expect(row(t, 'GONE spendable')).toEqual(['GONE spendable', '0', '−7']);
    expect(JSON.stringify(message.blocks)).toContain('Change since 2026-11-21 09:00 UTC');
  });

  it('puts a team total first with all, and gives a node that cannot answer one line', () => {
    const { message, snapshots } = buildBalanceReport({
      target: 'all',
      unit: 'sat',
      now,
      nodes: [
        { outcome: { ok: true, node: node('alice'), data: data() } },
        { outcome: { ok: true, node: node('bob'), data: data() } },
        { outcome: { ok: false, node: node('carol'), problem: 'locked', hint: 'unlock it with /rln node unlock carol' } },
      ],
    });
    const [total] = tables(message.blocks);
    expect(row(total, 'USDT spendable')?.[1]).toBe('246.90');
    expect(row(total, 'BTC settled')?.[1]).toBe('200,000');
    expect(message.blocks.findIndex((b) => b.type === 'table')).toBeLessThan(
      message.blocks.findIndex((b) => JSON.stringify(b).includes('carol')),
    );
    const carol = message.blocks.filter((b) => JSON.stringify(b).includes('carol'));
    expect(carol).toHaveLength(1);
    expect(JSON.stringify(carol[0])).toContain('unlock');
    expect(snapshots.map((s) => s.nodeId)).toEqual(['id-alice', 'id-bob']);
    expect(message.tone).toBe('warning');
  });

  it('keeps u64 amounts exact', () => {
    const huge = 18_446_744_073_709_551_615n;
    const d = data({
      btc: { vanilla: { settled: huge, future: huge, spendable: huge }, colored: { settled: 0n, future: 0n, spendable: 0n } },
    });
    const { message } = buildBalanceReport({
      target: 'alice',
      unit: 'sat',
      now,
      nodes: [{ outcome: { ok: true, node: node('alice'), data: d } }],
    });
    expect(row(tables(message.blocks)[0], 'BTC settled')?.[1]).toBe('18,446,744,073,709,551,615');
  });
});

describe('balance report over many nodes', () => {
  it('gives each node one overview row, and the nodes that cannot answer one line each, in few blocks', () => {
    const nodes = Array.from({ length: 30 }, (_, i) =>
      i % 5 === 4
        ? { outcome: { ok: false as const, node: node(`n${i}`), problem: 'paused', hint: `start it with /rln node start n${i}` } }
        : { outcome: { ok: true as const, node: node(`n${i}`), data: data() } },
    );
    const { message, snapshots } = buildBalanceReport({ target: 'all', unit: 'sat', now, nodes });
    expect(snapshots).toHaveLength(24);
    expect(message.blocks.length).toBeLessThan(10);
    const [total, overview] = tables(message.blocks);
    expect(row(total, 'BTC settled')?.[1]).toBe('2,400,000');
    expect(overview.rows).toHaveLength(24);
    expect(overview.rows[0]).toEqual(['n0', '90,000', '', '0', '', '0', '0', '1']);
    const problems = message.blocks.filter((b) => JSON.stringify(b).includes('paused'));
    expect(problems).toHaveLength(1);
    expect(JSON.stringify(problems[0]).match(/paused/g)).toHaveLength(6);
  });
});

describe("the balance table's units", () => {
  it("names the bitcoin unit and the assets' own units in the caption, not a sats header over asset rows", () => {
    for (const unit of ['sat', 'btc'] as const) {
      const block = balanceTable([{ label: 'USDT on-chain spendable', amount: 12345n, precision: 2 } as never], unit, false);
      if (block.type !== 'table') throw new Error('expected a table');
      expect(block.table.columns[1].header).toBe('Amount');
      expect(block.table.caption).toBe(`bitcoin in ${unit === 'btc' ? 'BTC' : 'sats'}, assets in their own units`);
      expect(block.table.rows[0][1]).toBe('123.45');
    }
  });
});
