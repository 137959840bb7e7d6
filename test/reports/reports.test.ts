import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReports, type TickSource } from '../../src/reports/index.js';
import { formatDelta, thousands, withPrecision } from '../../src/vocabulary/format.js';
import type { Block, Message, Table } from '../../src/vocabulary/message.js';
import { isUserError } from '../../src/vocabulary/errors.js';
import { silentLogger } from '../../src/log.js';
import { createMetrics } from '../../src/metrics.js';
import { capturingOutbox, startReportWorld, type ReportWorld } from '../support/report-world.js';
import { waitFor } from '../support/wait-for.js';

let w: ReportWorld;
beforeAll(async () => {
  w = await startReportWorld();
}, 90_000);
afterAll(async () => {
  await w?.close();
});

const tables = (m: Message): Table[] => m.blocks.flatMap((b) => (b.type === 'table' ? [b.table] : []));
const cell = (t: Table, label: string, col = 1) => t.rows.find((r) => r[0] === label)?.[col];
const big = (v: unknown) => BigInt(v as number | bigint);

function reports(opts: Partial<Parameters<typeof createReports>[0]> = {}) {
  const outbox = capturingOutbox();
  const metrics = createMetrics({ defaults: false });
  const r = createReports({ db: w.openDb(), services: w.services, outbox, logger: silentLogger, metrics, nodeTimeoutMs: 3_000, ...opts });
  return { ...r, outbox, metrics };
}

/** The blocks of one node's section in an `all` report: from its bold name to the next divider. */
function section(m: Message, name: string): Block[] {
  const start = m.blocks.findIndex((b) => b.type === 'text' && JSON.stringify(b.text).startsWith(`[{"bold":"${name}"}`));
  if (start < 0) return [];
  const end = m.blocks.findIndex((b, i) => i > start && b.type === 'divider');
  return m.blocks.slice(start, end < 0 ? undefined : end);
}

describe('a schedule keeps its own baseline', () => {
  it('counts the change since the last report of that schedule, and a report asked in chat does not move it', async () => {
    let t = Date.parse('2026-11-22T09:00:00Z');
    const { service } = reports({ now: () => t });
    const first = await service.run('balance', 'alice', { baseline: 'schedule:77' });
    expect(JSON.stringify(first.message.blocks)).not.toContain('since 2026-11-22 09:00');
    t += 60 * 60_000; // a report asked in chat at 10:00
    await service.balance('alice');
    t += 60 * 60_000; // the schedule's next run at 11:00
    const second = await service.run('balance', 'alice', { baseline: 'schedule:77' });
    expect(JSON.stringify(second.message.blocks)).toMatch(/since 2026-11-22 09:00 UTC/);
    // Another schedule starts from its own first run; the chat report compares with the chat one.
    const other = await service.run('balance', 'alice', { baseline: 'schedule:78' });
    expect(JSON.stringify(other.message.blocks)).not.toMatch(/since 2026-11-22/);
    t += 60 * 60_000;
    expect(JSON.stringify((await service.balance('alice')).message.blocks)).toMatch(/since 2026-11-22 10:00 UTC/);
  });
});

describe('balance report against the emulator', () => {
  it('shows the numbers the node API returns, with asset precision applied', async () => {
    const { service } = reports();
    const { message } = await service.balance('alice');
    const api = w.api('alice');
    const btc = await api.btcbalance({ skip_sync: false });
    const { channels = [] } = await api.listchannels();
    const ab = await api.assetbalance({ asset_id: w.assetId });
    const [t] = tables(message);
    const v = btc.vanilla;
    expect(cell(t, 'BTC settled')).toBe(thousands(v.settled));
    expect(cell(t, 'BTC spendable')).toBe(thousands(v.spendable));
    const pending = big(v.future) - big(v.settled);
    expect(cell(t, 'BTC pending')).toBe(pending === 0n ? undefined : thousands(pending));
    expect(cell(t, 'Colored settled')).toBe(thousands(btc.colored.settled));
    const local = channels.reduce((a, c) => a + big(c.local_balance_sat), 0n);
    const sendable = channels.filter((c) => c.is_usable).reduce((a, c) => a + big(c.outbound_balance_msat), 0n) / 1000n;
    const receivable = channels.reduce((a, c) => a + big(c.inbound_balance_msat), 0n) / 1000n;
    expect(local).toBeGreaterThan(0n);
    expect(cell(t, 'LN local')).toBe(thousands(local));
    expect(cell(t, 'LN sendable')).toBe(thousands(sendable));
    expect(cell(t, 'LN receivable')).toBe(thousands(receivable));
    expect(cell(t, 'USDT spendable')).toBe(withPrecision(ab.spendable, 2));
    expect(cell(t, 'USDT settled')).toBe(withPrecision(ab.settled, 2));
    expect(cell(t, 'USDT LN outbound')).toBe(withPrecision(ab.offchain_outbound!, 2));
    expect(cell(t, 'USDT spendable')).toMatch(/\.\d\d$/);
    const height = (await api.networkinfo()).height;
    expect(JSON.stringify(message.blocks)).toContain(`block ${thousands(height)}`);
  });

  it('shows the change after a payment moves the balance', async () => {
    const { service } = reports();
    await service.balance('bob');
    const bobApi = w.api('bob');
    const before = (await bobApi.listchannels()).channels.reduce((a, c) => a + big(c.local_balance_sat), 0n);
    const { invoice } = await bobApi.lninvoice({ amt_msat: 5_000_000, expiry_sec: 600 });
    await w.api('alice').sendpayment({ invoice });
    const after = (await bobApi.listchannels()).channels.reduce((a, c) => a + big(c.local_balance_sat), 0n);
    expect(after).not.toBe(before);
    const { message } = await service.balance('bob');
    const [t] = tables(message);
    expect(t.columns.map((c) => c.header)).toContain('Change');
    expect(cell(t, 'LN local', 2)).toBe(formatDelta(after - before));
    expect(JSON.stringify(message.blocks)).toContain('Change since');
  });

  it('gives a locked and a paused node one line each while the others report, team total first', async () => {
    const { service, metrics } = reports();
    const { message, answered, failed } = await service.balance('all');
    expect(answered).toBe(2);
    expect(failed).toBe(2);
    const text = (b: Block) => JSON.stringify(b);
    const dave = message.blocks.filter((b) => text(b).includes('dave'));
    expect(dave).toHaveLength(1);
    expect(text(dave[0])).toContain('locked');
    expect(text(dave[0])).toContain('node unlock dave');
    const carol = message.blocks.filter((b) => text(b).includes('carol'));
    expect(carol).toHaveLength(1);
    expect(text(carol[0])).toContain('paused');
    expect(section(message, 'alice').some((b) => b.type === 'table')).toBe(true);
    expect(section(message, 'bob').some((b) => b.type === 'table')).toBe(true);
    // The team total comes first and adds up the nodes.
    const [total, aliceT, bobT] = tables(message);
    expect(JSON.stringify(message.blocks[0])).toContain('Team total');
    const sum = (label: string) => {
      const parse = (s: string | undefined) => BigInt((s ?? '0').replace(/[,.]/g, ''));
      return parse(cell(aliceT, label)) + parse(cell(bobT, label));
    };
    expect(cell(total, 'USDT spendable')?.replace(/[,.]/g, '')).toBe(sum('USDT spendable').toString());
    expect(cell(total, 'BTC settled')).toBe(thousands(sum('BTC settled')));
    const runs = await metrics.registry.getSingleMetricAsString('rln_chatops_report_runs_total');
    expect(runs).toContain('outcome="partial"');
  });

  it('does not let a node that never answers hold the others past the timeout', async () => {
    const { service } = reports({ nodeTimeoutMs: 300 });
    w.hang.add('bob');
    try {
      const { message } = await service.balance('all');
      const bobLine = message.blocks.filter((b) => JSON.stringify(b).includes('bob'));
      expect(bobLine).toHaveLength(1);
      expect(JSON.stringify(bobLine[0])).toContain('did not answer');
      expect(section(message, 'alice').some((b) => b.type === 'table')).toBe(true);
    } finally {
      w.hang.delete('bob');
    }
  });

  it('dates the report by the clock it is given, not the machine’s', async () => {
    const at = Date.UTC(2031, 0, 2, 3, 4, 5);
    const { service } = reports({ now: () => at });
    const { message } = await service.balance('alice');
    expect(JSON.stringify(message)).toContain('2031-01-02 03:04 UTC');
  });

  it('shows BTC in BTC with unit=btc', async () => {
    const { service } = reports();
    const { message } = await service.balance('alice', { unit: 'btc' });
    const btc = await w.api('alice').btcbalance({ skip_sync: false });
    expect(cell(tables(message)[0], 'BTC settled')).toBe(withPrecision(btc.vanilla.settled, 8));
  });

  it('refuses an unknown node with a UserError', async () => {
    const { service } = reports();
    const e = await service.balance('nobody').catch((x: unknown) => x);
    expect(isUserError(e) && e.code).toBe('unknown_node');
  });
});

describe('channel report against the emulator', () => {
  it('has one row per channel matching /listchannels, asset amounts with precision, a private mark, the share flag', async () => {
    const thresholds = { low: 0.2, high: 0.8 };
    const { service } = reports({ thresholds });
    const { message } = await service.channels('alice');
    const { channels = [] } = await w.api('alice').listchannels();
    const [t] = tables(message);
    expect(t.rows).toHaveLength(channels.length);
    const c = channels[0];
    const r = t.rows[0];
    expect(r[0]).toBe(c.is_usable ? '●' : '◐');
    expect(r[2]).toBe(thousands(c.capacity_sat));
    expect(r[3]).toBe(thousands(big(c.outbound_balance_msat) / 1000n));
    expect(r[4]).toBe(thousands(big(c.inbound_balance_msat) / 1000n));
    expect(r[6]).toBe(`USDT ${withPrecision(c.asset_local_amount!, 2)}/${withPrecision(c.asset_remote_amount!, 2)}`);
    expect(r[7]).toContain('P');
    // Flagged exactly when the local share is at or beyond a threshold (compared in whole percents, no rounding).
    const local = big(c.local_balance_sat) * 100n;
    const cap = big(c.capacity_sat);
    const pct = (x: number) => BigInt(Math.round(x * 100));
    const flag = local <= cap * pct(thresholds.low) ? 'low' : local >= cap * pct(thresholds.high) ? 'high' : undefined;
    const share = Number(c.local_balance_sat) / Number(c.capacity_sat);
    const flagged = r[7].includes('!');
    expect(flagged).toBe(share >= thresholds.high || share <= thresholds.low);
    expect(r[7].split(' ').filter((m) => m.startsWith('!'))).toEqual(flag ? [`!${flag}`] : []);
    expect(JSON.stringify(message.blocks)).toContain(`${channels.length} channel(s)`);
  });

  it('shows a channel opened since the previous report', async () => {
    const { service } = reports();
    await service.channels('bob');
    const alice = w.api('alice');
    const bobPub = (await w.api('bob').nodeinfo()).pubkey;
    await alice.openchannel({ peer_pubkey_and_opt_addr: bobPub, capacity_sat: 20_000, public: true });
    const { message } = await service.channels('bob');
    const text = JSON.stringify(message.blocks);
    expect(text).toContain('opened 1');
    expect(tables(message)[0].rows.some((r) => r[0] === '○')).toBe(true);
  });
});

describe('report schedules', () => {
  it('refuses a bad cron expression and an unknown zone with a clear error', async () => {
    const { service } = reports();
    const base = { platform: 'slack' as const, channelId: 'C1', kind: 'balance' as const, node: 'alice', createdBy: 'slack:U1' };
    const bad = await service.schedule({ ...base, cron: '61 * * * *' }).catch((x: unknown) => x);
    expect(isUserError(bad) && bad.code).toBe('invalid_arguments');
    expect((bad as Error).message).toContain('minute');
    const fields = await service.schedule({ ...base, cron: '* * *' }).catch((x: unknown) => x);
    expect(isUserError(fields)).toBe(true);
    const zone = await service.schedule({ ...base, cron: '0 9 * * *', timezone: 'Mars/Olympus' }).catch((x: unknown) => x);
    expect(isUserError(zone) && zone.message).toContain('Mars/Olympus');
    expect(await service.schedules('slack', 'C1')).toHaveLength(0);
  });

  it('posts on time to the channel that asked, and again after a restart', async () => {
    const first = reports();
    await first.scheduler.start();
    const s = await first.service.schedule({
      platform: 'discord',
      channelId: 'chan-9',
      kind: 'balance',
      node: 'alice',
      cron: '*/1 * * * * *',
      timezone: 'Europe/Rome',
      createdBy: 'discord:42',
    });
    expect(s.nextRun).toBeInstanceOf(Date);
    await waitFor(() => first.outbox.items.length >= 1, { timeout: 8_000 });
    first.scheduler.stop();
    const item = first.outbox.items[0];
    expect(item).toMatchObject({ platform: 'discord', channelId: 'chan-9', kind: 'report' });
    expect(item.message.header).toContain('alice');
    expect(tables(item.message).length).toBeGreaterThan(0);

    // A restart: a new createReports on the same SQLite file re-registers the schedule.
    const second = reports();
    const listed = await second.service.schedules('discord', 'chan-9');
    expect(listed.map((x) => [x.id, x.kind, x.node, x.cron, x.timezone])).toEqual([
      [s.id, 'balance', 'alice', '*/1 * * * * *', 'Europe/Rome'],
    ]);
    expect(listed[0].nextRun).toBeInstanceOf(Date);
    await second.scheduler.start();
    try {
      await waitFor(() => second.outbox.items.length >= 1, { timeout: 8_000 });
      // It still shows the change since the last snapshot (taken before the restart).
      expect(JSON.stringify(second.outbox.items[0].message.blocks)).toMatch(/Change since|No change since/);
      const runs = await second.metrics.registry.getSingleMetricAsString('rln_chatops_report_runs_total');
      expect(runs).toContain('kind="balance"');
    } finally {
      second.scheduler.stop();
    }
    await expect(second.service.unschedule('discord', 'other-channel', s.id)).rejects.toThrow(/no report schedule/);
    await second.service.unschedule('discord', 'chan-9', s.id);
    expect(await second.service.schedules('discord', 'chan-9')).toHaveLength(0);
  });

  it('a schedule made through one replica is posted once per tick, by whichever replica claims it', async () => {
    // Two replicas on one SQLite file, their ticks driven by the test (both fire every tick).
    const handlers = [new Map<number, (at: Date) => Promise<void>>(), new Map<number, (at: Date) => Promise<void>>()];
    const ticks = (h: Map<number, (at: Date) => Promise<void>>): TickSource => ({
      every: (s, onTick) => (h.set(s.id, onTick), () => void h.delete(s.id)),
    });
    const a = reports({ ticks: ticks(handlers[0]), replicaId: 'a', reloadEveryMs: 50 });
    const b = reports({ ticks: ticks(handlers[1]), replicaId: 'b', reloadEveryMs: 50 });
    await a.scheduler.start();
    await b.scheduler.start();
    try {
      const s = await a.service.schedule({
        platform: 'slack',
        channelId: 'CREPL',
        kind: 'balance',
        node: 'alice',
        cron: '* * * * *',
        createdBy: 'slack:U1',
      });
      await waitFor(() => handlers[1].has(s.id), { what: 'replica b to load the schedule made on a' });
      const hour = Math.floor(Date.now() / 3_600_000) * 3_600_000;
      for (const minute of [0, 1]) {
        const tick = new Date(hour + minute * 60_000);
        await Promise.all(handlers.map(async (h) => h.get(s.id)?.(tick)));
      }
      const posted = [...a.outbox.items, ...b.outbox.items];
      expect(posted.map((i) => i.dedupeKey)).toEqual([0, 1].map((m) => `report:${s.id}:${new Date(hour + m * 60_000).toISOString()}`));
      expect(posted.every((i) => i.channelId === 'CREPL' && (i.message.header ?? '').includes('alice'))).toBe(true);
      await b.service.unschedule('slack', 'CREPL', s.id);
      await waitFor(() => !handlers[0].has(s.id), { what: 'replica a to drop the schedule removed on b' });
    } finally {
      a.scheduler.stop();
      b.scheduler.stop();
    }
  });

  it('caps the schedules of a channel', async () => {
    const { service } = reports({ maxSchedulesPerChannel: 1 });
    const base = {
      platform: 'slack' as const,
      channelId: 'CCAP',
      kind: 'channels' as const,
      node: 'all',
      cron: '0 9 * * *',
      createdBy: 'slack:U1',
    };
    await service.schedule(base);
    const e = await service.schedule(base).catch((x: unknown) => x);
    expect(isUserError(e) && e.code).toBe('conflict');
    expect(await service.schedules('slack', 'CCAP')).toHaveLength(1);
  });

  it('posts what went wrong, and how to remove it, when the scheduled node is gone', async () => {
    const { node } = await w.hosting.createNode({ name: 'eve', network: 'regtest' });
    const r = reports();
    const s = await r.service.schedule({
      platform: 'slack',
      channelId: 'CGONE',
      kind: 'balance',
      node: 'eve',
      cron: '*/1 * * * * *',
      createdBy: 'slack:U1',
    });
    await w.hosting.destroyNode(node.nodeId);
    await r.scheduler.start();
    try {
      await waitFor(() => r.outbox.items.length >= 1, { timeout: 8_000 });
    } finally {
      r.scheduler.stop();
    }
    const m = r.outbox.items[0];
    expect(m.channelId).toBe('CGONE');
    expect(m.message.tone).toBe('danger');
    const text = JSON.stringify(m.message);
    expect(text).toContain('The node eve no longer exists');
    expect(text).toContain(`report unschedule ${s.id}`);
  });
});
