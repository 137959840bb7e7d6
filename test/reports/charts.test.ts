/**
 * Charts in reports, against the emulator: drawn from the snapshots the store keeps, only once a
 * node has two of them, as PNGs of the width the renderer states.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReports } from '../../src/reports/index.js';
import { silentLogger } from '../../src/log.js';
import { fileBytes } from '../../src/vocabulary/message.js';
import { CHART_WIDTH } from '../../src/reports/charts/render-chart.js';
import { readPng } from '../support/decode-png.js';
import { capturingOutbox, startReportWorld, type ReportWorld } from '../support/report-world.js';

let w: ReportWorld;
let reports: ReturnType<typeof createReports>;
let clock = Date.parse('2026-11-01T09:00:00Z');

beforeAll(async () => {
  w = await startReportWorld();
  // Each report one hour after the previous, so the history spans time as it would.
  reports = createReports({
    db: w.openDb(),
    services: w.services,
    outbox: capturingOutbox(),
    logger: silentLogger,
    now: () => (clock += 3_600_000),
  });
}, 90_000);
afterAll(async () => {
  await w?.close();
});

describe('report charts', () => {
  it('a node with one snapshot gets no chart; the next balance report carries a PNG of its history', async () => {
    const first = await reports.service.balance('alice');
    expect(first.message.files ?? []).toEqual([]);
    const second = await reports.service.balance('alice');
    const [file] = second.message.files ?? [];
    expect(file).toBeDefined();
    expect(file.name).toBe('balance-alice-7d.png');
    expect(file.mime).toBe('image/png');
    expect(file.title).toContain('last 7 days');
    const png = readPng(fileBytes(file));
    expect(png.width).toBe(CHART_WIDTH);
    expect(png.width).toBe(file.width);
    expect(png.height).toBe(file.height);
    // Not a blank image: more than one colour is drawn.
    const colours = new Set<number>();
    for (let i = 0; i < png.data.length; i += 4 * 97) colours.add(png.data.readUInt32BE(i));
    expect(colours.size).toBeGreaterThan(5);
  });

  it('draws each channel of a node once it has two channel reports, and none with days=0', async () => {
    await reports.service.channels('alice');
    const r = await reports.service.channels('alice', { chartDays: 30 });
    expect(r.message.files?.map((f) => f.name)).toEqual(['channels-alice-30d.png']);
    const none = await reports.service.channels('alice', { chartDays: 0 });
    expect(none.message.files ?? []).toEqual([]);
  });

  it('leaves out snapshots older than the window', async () => {
    clock += 40 * 86_400_000;
    const r = await reports.service.balance('alice', { chartDays: 30 });
    expect(r.message.files ?? []).toEqual([]);
  });
});
