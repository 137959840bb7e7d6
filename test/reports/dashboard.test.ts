/**
 * The status dashboard's data against the emulator: a locked node is shown locked, a node that
 * hangs gets its timeout and does not hide the others, and balances come from the node API.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReports } from '../../src/reports/index.js';
import { silentLogger } from '../../src/log.js';
import { dashboardMessage } from '../../commands/status.js';
import { messageText } from '../support/reply-text.js';
import { capturingOutbox, startReportWorld, type ReportWorld } from '../support/report-world.js';

let w: ReportWorld;
let reports: ReturnType<typeof createReports>;

beforeAll(async () => {
  w = await startReportWorld();
  reports = createReports({
    db: w.openDb(),
    services: w.services,
    outbox: capturingOutbox(),
    logger: silentLogger,
    // Generous: no test here is about a slow node, and on a busy machine 500 ms turned alice "unknown".
    dashboardTimeoutMs: 20_000,
  });
}, 90_000);
afterAll(async () => {
  await w?.close();
});

describe('the status dashboard', () => {
  it('shows every node, a locked one as locked, and the balances its node API gives', async () => {
    const rows = await reports.service.dashboard();
    expect(rows.map((r) => r.node.name).sort()).toEqual(
      w.emulator
        .nodes()
        .map((n) => n.name)
        .sort(),
    );
    expect(rows.find((r) => r.node.name === 'dave')?.lock).toBe('locked');
    const alice = rows.find((r) => r.node.name === 'alice')!;
    expect(alice.lock).toBe('unlocked');
    const btc = await w.api('alice').btcbalance({ skip_sync: true });
    expect(alice.onchainSat).toBe(BigInt(btc.vanilla?.spendable ?? 0) + BigInt(btc.colored?.spendable ?? 0));
    const chans = (await w.api('alice').listchannels()).channels ?? [];
    expect(alice.channelsTotal).toBe(chans.length);
    expect(alice.channelsUsable).toBe(chans.filter((c) => c.is_usable).length);
  });

  it("counts a scheduled report as the node's last report (P13)", async () => {
    const before = (await reports.service.dashboard()).find((r) => r.node.name === 'bob')!;
    expect(before.lastReportAt).toBeUndefined();
    // What a schedule's run does: a report with the schedule's own baseline.
    await reports.service.run('balance', 'all', { baseline: 'schedule:7', chartDays: 0 });
    const bob = (await reports.service.dashboard()).find((r) => r.node.name === 'bob')!;
    expect(bob.lastReportAt).toBeInstanceOf(Date);
    expect(messageText(dashboardMessage([bob], { incidents: [], watches: [], now: new Date() }))).not.toContain('never');
  });

  it('gives a node that does not answer its timeout and still shows the others', async () => {
    w.hang.add('bob');
    try {
      const rows = await reports.service.dashboard();
      expect(rows.find((r) => r.node.name === 'bob')?.problem).toMatch(/did not answer/);
      expect(rows.find((r) => r.node.name === 'alice')?.lock).toBe('unlocked');
    } finally {
      w.hang.delete('bob');
    }
  });

  it('pages past eight nodes with a next-page button', () => {
    const node = (i: number) => ({
      node: { nodeId: `n${i}`, name: `node${String(i).padStart(2, '0')}`, status: 'RUNNING' } as never,
      lock: 'unlocked' as const,
    });
    const all = Array.from({ length: 11 }, (_, i) => node(i));
    const first = dashboardMessage(all, { incidents: [], watches: [], now: new Date() });
    expect(messageText(first)).toContain('node07');
    expect(messageText(first)).not.toContain('node08');
    expect(first.buttons?.find((b) => b.label === 'Next page')?.args).toEqual({ page: '2' });
    const second = dashboardMessage(all, { incidents: [], watches: [], now: new Date(), page: 2 });
    expect(messageText(second)).toContain('node10');
    expect(second.buttons?.some((b) => b.label === 'Previous page')).toBe(true);
  });
});
