/**
 * A node's balance report is one round of node calls: /listassets embeds each asset's balance, so
 * no /assetbalance is asked per asset (at 2,000 nodes that was a second round for every node with an
 * asset). Counted at the emulator; the figures shown are the node's own /assetbalance answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReports } from '../../src/reports/index.js';
import { withPrecision } from '../../src/vocabulary/format.js';
import type { Message, Table } from '../../src/vocabulary/message.js';
import { silentLogger } from '../../src/log.js';
import { createMetrics } from '../../src/metrics.js';
import { capturingOutbox, startReportWorld, type ReportWorld } from '../support/report-world.js';

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

describe('a balance report of a node with three assets', () => {
  it('asks /listassets once and /assetbalance never, and shows each asset as /assetbalance would', async () => {
    const service = createReports({
      db: w.openDb(),
      services: w.services,
      outbox: capturingOutbox(),
      logger: silentLogger,
      metrics: createMetrics({ defaults: false }),
      nodeTimeoutMs: 3_000,
    }).service;
    const alicePath = `/${w.node('alice').nodeId}/`;
    const from = w.emulator.requests.length;
    const { message, answered } = await service.balance('alice');
    const asked = w.emulator.requests
      .slice(from)
      .filter((r) => r.path.includes(alicePath))
      .map((r) => r.path.slice(r.path.lastIndexOf('/') + 1));
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
