/**
 * The daily digest's figures and message, from stored records as the store gives them: counts,
 * payment totals per asset, incidents with how long each lasted, upgrades and locks, alerts by
 * kind, and each figure's change since the day before.
 */
import { describe, expect, it } from 'vitest';
import { buildDigest, digestFigures } from '../../src/reports/index.js';
import type { DigestDay } from '../../src/reports/digest.js';
import { toBlockKit, allBlocks } from '../../src/chat/slack/index.js';
import { renderText } from '../../src/chat/shell/render-text.js';
import { assertSlackLimits } from '../chat/slack/assert-slack-limits.js';

const NOW = Date.parse('2026-06-02T09:00:00Z');
const H = 3_600_000;

const event = (type: string, at: number, facts?: Record<string, unknown>, node = 'n-alice', name = 'alice') => ({
  nodeId: node,
  nodeName: name,
  eventType: type,
  status: type === 'NODE_STATUS_UPDATED' ? 'FAILED' : null,
  receivedAt: at,
  payload: JSON.stringify(
    type.startsWith('ACTIVITY_')
      ? { kind: type.includes('PAYMENT') ? 'payments' : type.includes('CHANNEL') ? 'channels' : 'lock', message: { blocks: [] }, facts }
      : { status: 'FAILED' },
  ),
});

const today: DigestDay = {
  events: [
    event('ACTIVITY_PAYMENT_RECEIVED', NOW - 5 * H, { amtMsat: '30000000' }),
    event('ACTIVITY_PAYMENT_RECEIVED', NOW - 4 * H, {
      amtMsat: '3000000',
      assetId: 'rgb:usdt',
      assetAmount: '1250',
      assetLabel: 'USDT',
      precision: 2,
    }),
    event('ACTIVITY_PAYMENT_SENT', NOW - 3 * H, { amtMsat: '1500000' }),
    event('ACTIVITY_PAYMENT_FAILED', NOW - 3 * H, { amtMsat: '2000000' }),
    event('ACTIVITY_CHANNEL_OPENED', NOW - 6 * H),
    event('ACTIVITY_NODE_LOCKED', NOW - 2 * H),
    event('NODE_STATUS_UPDATED', NOW - 7 * H),
  ],
  incidents: [
    { id: 4, nodeId: 'n-alice', nodeName: 'alice', lastStatus: 'RUNNING', openedAt: NOW - 7 * H, resolvedAt: NOW - 7 * H + 12 * 60_000 },
    { id: 5, nodeId: 'n-bob', nodeName: 'bob', lastStatus: 'FAILED', openedAt: NOW - 2 * H, resolvedAt: null },
  ],
  commands: [{ path: 'node upgrade', node: 'alice', nodeId: 'n-alice', at: new Date(NOW - 8 * H).toISOString() }],
};
const yesterday: DigestDay = {
  events: [event('ACTIVITY_PAYMENT_RECEIVED', NOW - 30 * H, { amtMsat: '10000000' }), event('ACTIVITY_CHANNEL_CLOSED', NOW - 40 * H)],
  incidents: [],
  commands: [],
};

describe('the daily digest', () => {
  it('counts the day: payments in, out and failed, channels, incidents, upgrades, locks and alerts by kind', () => {
    const f = digestFigures(today);
    expect(f).toMatchObject({
      paymentsIn: 2,
      paymentsOut: 1,
      paymentsFailed: 1,
      channelsOpened: 1,
      channelsClosed: 0,
      incidents: 2,
      upgrades: 1,
      locks: 1,
    });
    expect(Object.fromEntries(f.alerts)).toEqual({ payments: 4, channels: 1, lock: 1, status: 1 });
    expect(f.assets.get('BTC')).toMatchObject({ in: 33_000_000n, out: 1_500_000n });
    expect(f.assets.get('rgb:usdt')).toMatchObject({ label: 'USDT', precision: 2, in: 1250n, out: 0n });
  });

  it('says it all in one message: figures with their change, totals per asset in a table, incidents with how long they lasted', async () => {
    const { message } = await buildDigest({ target: 'all', now: new Date(NOW), today, yesterday, chart: false });
    const text = renderText(message);
    expect(message.header).toBe('Daily digest: all');
    expect(text).toMatch(/Payments in\W+2 \(\+1\)/);
    expect(text).toMatch(/Channels closed\W+0 \(−1\)/);
    expect(text).toMatch(/Incidents\W+2 \(\+2\)/);
    // Totals per asset: BTC in sats, the asset in display units, with the change since the day before.
    const table = message.blocks.find((b) => b.type === 'table');
    expect(table?.type === 'table' && table.table.rows).toEqual([
      ['BTC (sats)', '33,000', '1,500', '+23,000', '+1,500'],
      ['USDT', '12.50', '0.00', '+12.50', '±0'],
    ]);
    expect(text).toContain('#4 alice, RUNNING: lasted 12m 0s');
    expect(text).toContain('#5 bob, FAILED: still open, 2h 0m so far');
    expect(text).toContain('alice upgraded through the bot');
    expect(text).toContain('alice restarted LOCKED');
    expect(text).toMatch(/payments\W+4 \(\+3\)/);
    // On Slack: one message, its table native, within every limit.
    const slack = toBlockKit(message);
    assertSlackLimits(slack);
    expect(allBlocks(slack).filter((b) => b.type === 'table')).toHaveLength(1);
  });

  it('draws its chart: a PNG of the day beside the day before, with a description', async () => {
    const { message } = await buildDigest({ target: 'alice', now: new Date(NOW), today, yesterday });
    expect(message.files).toHaveLength(1);
    const f = message.files![0];
    expect(f.mime).toBe('image/png');
    expect(Buffer.from(f.base64, 'base64').subarray(1, 4).toString()).toBe('PNG');
    expect(f.alt).toContain('the last 24 hours beside the 24 hours before');
  }, 60_000);

  it('posts a quiet day too, saying nothing moved', async () => {
    const empty = { events: [], incidents: [], commands: [] };
    const { message } = await buildDigest({ target: 'all', now: new Date(NOW), today: empty, yesterday: empty, chart: false });
    const text = renderText(message);
    expect(text).toContain('No payment moved any asset in the last 24 hours.');
    expect(text).toContain('No alerts in the last 24 hours.');
  });
});
