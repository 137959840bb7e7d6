/**
 * Node activity and escalation through the whole bot (src/app/create-app.ts via the harness): the emulator
 * as the service and its node APIs, the fake Slack in HTTP mode, and the fake PagerDuty. The
 * poller runs every 0.2 s, incidents page after 0.02 min and posts to a channel are paced 0.1 s
 * apart, so the tests run in seconds.
 */
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakePagerDuty, type FakePagerDuty } from '../fakes/pagerduty/index.js';
import { createSlackDriver, startFakeSlack, type FakeSlack, type SlackDriver } from '../fakes/slack/index.js';
import { startHarness, type Harness } from '../support/harness.js';
import { waitFor } from '../support/wait-for.js';

const SIGNING_SECRET = 'activity-signing-secret-123';
const OPERATOR = { id: 'UOPS', name: 'otto' };
const ADMIN = { id: 'UADM', name: 'ada' };
const CHANNEL = 'CACTIVITY';
const ROUTING_KEY = 'R0UT1NGKEY0123456789abcdefABCDEF';
const HOOK_SECRET = 'escalation-hook-secret';
const PASSWORD = 'demo-password';

let fake: FakeSlack;
let pd: FakePagerDuty;
let h: Harness;
let slack: SlackDriver;
const ids: Record<string, string> = {};

beforeAll(async () => {
  fake = await startFakeSlack();
  pd = await startFakePagerDuty();
  h = await startHarness({
    env: {
      SLACK_BOT_TOKEN: 'xoxb-activity-bot-token',
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_API_URL: fake.apiUrl,
      OPERATOR_USERS: `slack:${OPERATOR.id}`,
      ADMIN_USERS: `slack:${ADMIN.id}`,
      POLL_INTERVAL_S: '0.2',
      ESCALATE_AFTER_MIN: '0.02',
      PAGERDUTY_ROUTING_KEY: ROUTING_KEY,
      PAGERDUTY_EVENTS_URL: pd.eventsUrl,
      ESCALATION_WEBHOOK_URL: pd.hookUrl,
      ESCALATION_WEBHOOK_SECRET: HOOK_SECRET,
      // The fake PagerDuty and escalation hook listen on loopback, an inside address.
      ALLOW_PRIVATE_URLS: '127.0.0.1',
    },
    emulator: { seed: 'demo', demoPassword: PASSWORD },
    // Every test posts to the one channel, often twice in a row: not a second apart, as Slack wants.
    pacing: { perChannelIntervalMs: 100 },
  });
  slack = createSlackDriver(fake, 'http', { eventsUrl: `${h.url}/slack/events`, signingSecret: SIGNING_SECRET });
  for (const n of h.emulator.nodes()) ids[n.name] = n.nodeId;
}, 90_000);
afterAll(async () => {
  await h?.close();
  await pd?.close();
  await fake?.close();
});

/** Top-level posts to the channel, as JSON text. */
const posts = () =>
  fake
    .callsTo('chat.postMessage')
    .filter((c) => c.args.channel === CHANNEL && !c.args.thread_ts)
    .map((c) => JSON.stringify(c.args));
const postsWith = (text: string) => posts().filter((p) => p.includes(text));
const waitForPost = (text: string, timeoutMs = 10_000) =>
  waitFor(() => postsWith(text).length > 0, { timeout: timeoutMs, what: `a post with "${text}"` });
const call = (name: string, endpoint: string, body?: unknown) =>
  h.emulator.world.handle(ids[name], body === undefined ? 'GET' : 'POST', endpoint, body);
/** Whether the poller has a stored state for the node (its first poll, which only records, happened). */
const recorded = async (name: string) => (await h.app.db.get('SELECT 1 FROM activity_states WHERE node_id = ?', [ids[name]])) !== undefined;
/** Lets a few polls run. */
const polls = async (n = 3) => {
  for (let i = 0; i < n; i++) await new Promise((r) => setTimeout(r, 250));
};

async function pay(from: string, to: string, msat: number): Promise<void> {
  const inv = (await call(to, 'lninvoice', { amt_msat: msat, expiry_sec: 600 })).body as { invoice: string };
  const paid = await call(from, 'sendpayment', { invoice: inv.invoice });
  expect((paid.body as { status: string }).status).toBe('Succeeded');
}

async function slash(text: string): Promise<string> {
  const { responseUrl } = await slack.slash(OPERATOR, text, { channelId: CHANNEL });
  const [r] = await fake.waitForResponds(responseUrl);
  return JSON.stringify(r.body);
}

describe('node activity through the whole bot', () => {
  it('posts a payment bob received to the channel watching bob, once, with the amount and the channel with our node named', async () => {
    expect(await slash('watch add bob kinds=payments,channels min_amount="1k sats"')).toContain('payments, channels');
    expect(await slash('watch add alice kinds=status,channels,liquidity,lock')).toContain('status, channels, liquidity, lock');
    await waitFor(async () => (await recorded('alice')) && (await recorded('bob')), { timeout: 10_000, what: 'the first polls' });
    await call('alice', 'connectpeer', { peer_pubkey_and_addr: `${h.emulator.world.pubkeyOf(ids.bob)}@127.0.0.1:9735` });
    await call('alice', 'openchannel', {
      peer_pubkey_and_opt_addr: h.emulator.world.pubkeyOf(ids.bob),
      capacity_sat: 100_000,
      push_msat: 0,
    });
    h.emulator.world.mine(1);
    // Each side's watch hears the channel, the peer named as our node.
    await waitForPost('alice: channel opened with bob');
    await waitForPost('bob: channel opened with alice');

    await pay('alice', 'bob', 30_000_000);
    await waitForPost('bob: payment received, 30,000 sats');
    // Below the watch's min_amount: not posted.
    await pay('alice', 'bob', 500_000);
    await polls();
    expect(postsWith('bob: payment received')).toHaveLength(1);
    // alice's watch does not hear payments.
    expect(postsWith('alice: payment sent')).toHaveLength(0);
    // The poller's metrics moved with it.
    const metrics = await (await fetch(`${h.url}/metrics`)).text();
    expect(metrics).toMatch(/^rln_chatops_activity_events_total\{kind="payments"\} [1-9]/m);
    expect(metrics).toMatch(/^rln_chatops_activity_polls_total\{outcome="unlocked"\} [1-9]/m);
  });

  it('posts a liquidity crossing once, not on every poll', async () => {
    // alice had all of the channel (high), then 70 % (back to normal): now under 20 % is low.
    await waitForPost('alice: channel with bob is back to');
    await pay('alice', 'bob', 55_000_000);
    await waitForPost('low local liquidity');
    await pay('alice', 'bob', 1_000_000);
    await polls();
    expect(postsWith('low local liquidity')).toHaveLength(1);
  });

  it('posts a close when the peer closes the channel', async () => {
    const channel = ((await call('bob', 'listchannels')).body as { channels: Array<{ channel_id: string }> }).channels[0];
    const closed = await call('bob', 'closechannel', { channel_id: channel.channel_id, peer_pubkey: h.emulator.world.pubkeyOf(ids.alice) });
    expect(closed.status).toBe(200);
    h.emulator.world.mine(1);
    await waitForPost('alice: channel closed with bob');
    await waitForPost('bob: channel closed with alice');
  });

  it('posts a failed payment: with the channel gone, a keysend from bob fails', async () => {
    const sent = await call('bob', 'keysend', { dest_pubkey: h.emulator.world.pubkeyOf(ids.alice), amt_msat: 2_000_000 });
    expect((sent.body as { status: string }).status).toBe('Failed');
    await waitForPost('bob: payment failed, 2,000 sats');
  });

  it('pages on-call for an unacknowledged FAILED incident, acknowledges there when Acknowledge is clicked, and resolves on recovery', async () => {
    await h.app.services.hosting.updateSettings(ids.alice, { webhookUrl: `${h.url}/webhooks/service/${ids.alice}` });
    h.emulator.setStatus(ids.alice, 'FAILED');
    await waitForPost('Incident #');
    await waitFor(() => pd.events.some((e) => e.event_action === 'trigger'), { timeout: 15_000, what: 'the PagerDuty trigger' });
    const trigger = pd.events.find((e) => e.event_action === 'trigger')!;
    expect(trigger).toMatchObject({ routing_key: ROUTING_KEY, payload: { source: 'alice', severity: 'critical' } });
    expect(trigger.payload!.summary).toContain('alice is FAILED');
    // The generic webhook got the same trigger, signed over its body.
    await waitFor(() => pd.hooks.length > 0, { timeout: 10_000, what: 'the escalation webhook' });
    const hook = pd.hooks[0];
    expect(hook.headers['x-rln-chatops-signature']).toBe(`sha256=${createHmac('sha256', HOOK_SECRET).update(hook.body).digest('hex')}`);
    expect(JSON.parse(hook.body)).toMatchObject({ event_action: 'trigger', dedup_key: trigger.dedup_key });
    // The incident message says when and to whom it was escalated.
    await waitFor(() => fake.callsTo('chat.update').some((c) => JSON.stringify(c.args).includes('Escalated')), {
      timeout: 10_000,
      what: 'the incident message updated',
    });
    expect(JSON.stringify(fake.callsTo('chat.update').at(-1)!.args)).toContain('PagerDuty');

    const incidentPost = fake
      .callsTo('chat.postMessage')
      .find((c) => c.args.channel === CHANNEL && JSON.stringify(c.args).includes('Incident #'))!;
    const ackButton = JSON.stringify(incidentPost.args).match(
      /"text":\{"type":"plain_text","text":"Acknowledge"[^}]*\}[^}]*?"action_id":"([^"]+)"/,
    )?.[1];
    expect(ackButton).toBeDefined();
    await slack.click(OPERATOR, ackButton!, { channelId: CHANNEL });
    await waitFor(() => pd.alerts.get(trigger.dedup_key!) === 'acknowledged', { timeout: 10_000, what: 'the PagerDuty acknowledge' });

    h.emulator.setStatus(ids.alice, 'RUNNING');
    await waitFor(() => pd.alerts.get(trigger.dedup_key!) === 'resolved', { timeout: 15_000, what: 'the PagerDuty resolve' });
    expect(pd.events.map((e) => e.event_action)).toEqual(['trigger', 'acknowledge', 'resolve']);
  });

  it('posts "alice restarted and is LOCKED" after a restart that comes back locked, and its Unlock button opens the password dialog', async () => {
    h.emulator.restartNode(ids.alice);
    await waitForPost('alice restarted and is LOCKED');
    const alert = fake
      .callsTo('chat.postMessage')
      .find((c) => c.args.channel === CHANNEL && JSON.stringify(c.args).includes('restarted and is LOCKED'))!;
    const unlock = JSON.stringify(alert.args).match(
      /"text":\{"type":"plain_text","text":"Unlock alice"[^}]*\}[^}]*?"action_id":"([^"]+)"/,
    )?.[1];
    expect(unlock).toBeDefined();
    const before = fake.callsTo('views.open').length;
    // Unlocking takes the admin role: the dialog opens for an admin.
    await slack.click(ADMIN, unlock!, { channelId: CHANNEL });
    await fake.waitForCalls('views.open', before + 1);
    const view = fake.views.at(-1)!;
    expect(view.blocks.some((b: { block_id?: string }) => b.block_id === 'password')).toBe(true);
    await polls();
    expect(postsWith('restarted and is LOCKED')).toHaveLength(1);
  });

  it('does not post the payment again after a restart of the bot', async () => {
    await h.restart();
    await polls(4);
    expect(postsWith('bob: payment received, 30,000 sats')).toHaveLength(1);
    expect(postsWith('alice: channel opened with bob')).toHaveLength(1);
  });
});
