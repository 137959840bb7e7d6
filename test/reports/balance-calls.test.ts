/**
 * A node's balance report is one round of node calls: /listassets embeds each asset's balance, so
 * no /assetbalance is asked per asset (at 2,000 nodes that was a second round for every node with an
 * asset). Counted at the emulator; the figures shown are the node's own /assetbalance answers.
 * A report of more nodes than it shows in sections asks no /networkinfo: their block height is not shown.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReports } from '../../src/reports/index.js';
import { withPrecision } from '../../src/vocabulary/format.js';
import type { Message, Table } from '../../src/vocabulary/message.js';
import { silentLogger } from '../../src/log.js';
import { createMetrics } from '../../src/metrics.js';
import { capturingOutbox, startReportWorld, type ReportWorld } from '../support/report-world.js';
import { DETAIL_MAX_NODES } from '../../src/reports/balance-report.js';
import { thousands } from '../../src/vocabulary/index.js';
import { waitFor } from '../support/wait-for.js';

let w: ReportWorld;
let assets: Array<{ id: string; label: string; precision: number }> = [];
beforeAll(async () => {
  w = await startReportWorld();
  const alice = w.api('alice');
  // alice holds three assets: the world's USDT (NIA), and a CFA and a UDA of her own.
  const cfa = (await alice.issueassetcfa({ name: 'Points', precision: 1, amounts: [5_000] })) as unknown as { asset: { asset_id: string } };
  const uda = (await alice.issueassetuda({ ticker: 'ART', name: 'Artwork', precision: 0 })) as unknown as { asset: { asset_id: string } };
  assets = [
    { id: w.assetId, label: 'USDT', precision: 2 },
    { id: cfa.asset.asset_id, label: 'Points', precision: 1 },
    { id: uda.asset.asset_id, label: 'ART', precision: 0 },
  ];
}, 90_000);
afterAll(async () => {
  await w?.close();
});

const tables = (m: Message): Table[] => m.blocks.flatMap((b) => (b.type === 'table' ? [b.table] : []));
const cell = (t: Table, label: string) => t.rows.find((r) => r[0] === label)?.[1];

const reportService = () =>
  createReports({
    db: w.openDb(),
    services: w.services,
    outbox: capturingOutbox(),
    logger: silentLogger,
    metrics: createMetrics({ defaults: false }),
    nodeTimeoutMs: 3_000,
  }).service;

/** The endpoints a report asked while `run` ran, each as `node name:endpoint`. */
async function askedDuring<T>(run: () => Promise<T>): Promise<{ result: T; asked: string[] }> {
  const names = new Map(w.emulator.nodes().map((n) => [n.nodeId, n.name]));
  const from = w.emulator.requests.length;
  const result = await run();
  const asked = w.emulator.requests.slice(from).flatMap((r) => {
    const node = [...names].find(([id]) => r.path.includes(`/${id}/`));
    return node ? [`${node[1]}:${r.path.slice(r.path.lastIndexOf('/') + 1)}`] : [];
  });
  return { result, asked };
}

describe('a balance report of a node with three assets', () => {
  it('asks /listassets once and /assetbalance never, and shows each asset as /assetbalance would', async () => {
    const service = reportService();
    const { result, asked: all } = await askedDuring(() => service.balance('alice'));
    const { message, answered } = result;
    const asked = all.filter((e) => e.startsWith('alice:')).map((e) => e.slice('alice:'.length));
    expect(answered).toBe(1);
    expect(asked.filter((e) => e === 'listassets')).toHaveLength(1);
    expect(asked).not.toContain('assetbalance');

    const [t] = tables(message);
    const api = w.api('alice');
    for (const a of assets) {
      const b = await api.assetbalance({ asset_id: a.id });
      expect(BigInt(b.settled as never)).toBeGreaterThan(0n);
      expect(cell(t, `${a.label} settled`)).toBe(withPrecision(b.settled, a.precision));
      expect(cell(t, `${a.label} spendable`)).toBe(withPrecision(b.spendable, a.precision));
    }
  });
});

describe('the block height in a report', () => {
  it('is asked of each node shown in a section of its own, and of none when the report shows a row per node', async () => {
    const service = reportService();
    const height = (await w.api('alice').networkinfo()).height;
    const detail = await askedDuring(() => service.balance('alice'));
    expect(detail.asked).toContain('alice:networkinfo');
    expect(JSON.stringify(detail.result.message.blocks)).toContain(`block ${thousands(BigInt(height))}`);

    // One node more than a report shows in sections.
    const names = w.emulator.nodes().map((n) => n.name);
    for (let i = names.length; i <= DETAIL_MAX_NODES; i++) {
      const { node } = await w.hosting.createNode({ name: `extra-${i}`, network: 'regtest' });
      await waitFor(() => w.emulator.nodes().find((n) => n.nodeId === node.nodeId)?.status === 'RUNNING');
    }
    expect(w.emulator.nodes().length).toBeGreaterThan(DETAIL_MAX_NODES);
    for (const run of [() => service.balance('all'), () => service.channels('all')]) {
      const { result, asked } = await askedDuring(run);
      expect(result.answered).toBeGreaterThanOrEqual(2);
      expect(asked.some((e) => e.startsWith('alice:'))).toBe(true);
      expect(asked.filter((e) => e.endsWith(':networkinfo'))).toEqual([]);
      expect(JSON.stringify(result.message.blocks)).not.toMatch(/block \d/);
    }
  });
});
