/**
 * `report digest` through the whole bot (src/app.ts via the harness): the emulator as the service
 * and its node APIs, the fake Slack in HTTP mode. The day is made for real: watches, a channel
 * opened and a payment made on the emulator's nodes (seen by the activity poller), an incident
 * opened and resolved by the service's signed webhooks, a restart that comes back locked. The
 * digest then reads the bot's own stored records, asked in chat and on a schedule.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSlackDriver, startFakeSlack, type FakeSlack, type SlackDriver } from '../fakes/slack/index.js';
import { messageTableProblems } from '../fakes/slack/table-blocks.js';
import { startHarness, type Harness } from '../support/harness.js';
import { waitFor } from '../support/wait-for.js';

const SIGNING_SECRET = 'digest-signing-secret-123';
const OPERATOR = { id: 'UOPS', name: 'otto' };
const CHANNEL = 'CDIGEST';

let fake: FakeSlack;
let h: Harness;
let slack: SlackDriver;
const ids: Record<string, string> = {};

beforeAll(async () => {
  fake = await startFakeSlack();
  h = await startHarness({
    env: {
      SLACK_BOT_TOKEN: 'xoxb-digest-bot-token',
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_API_URL: fake.apiUrl,
      OPERATOR_USERS: `slack:${OPERATOR.id}`,
      POLL_INTERVAL_S: '0.2',
    },
    emulator: { seed: 'demo', demoPassword: 'demo-password' },
  });
  slack = createSlackDriver(fake, 'http', { eventsUrl: `${h.url}/slack/events`, signingSecret: SIGNING_SECRET });
  for (const n of h.emulator.nodes()) ids[n.name] = n.nodeId;
}, 90_000);
afterAll(async () => {
  await h?.close();
  await fake?.close();
});

const posts = () =>
  fake
    .callsTo('chat.postMessage')
    .filter((c) => c.args.channel === CHANNEL && !c.args.thread_ts)
    .map((c) => JSON.stringify(c.args));
const waitForPost = (text: string) =>
  waitFor(() => posts().some((p) => p.includes(text)), { timeout: 15_000, what: `a post with "${text}"` });
const call = (name: string, endpoint: string, body?: unknown) =>
  h.emulator.world.handle(ids[name], body === undefined ? 'GET' : 'POST', endpoint, body);
const recorded = async (name: string) => (await h.app.db.get('SELECT 1 FROM activity_states WHERE node_id = ?', [ids[name]])) !== undefined;

async function slash(text: string): Promise<Record<string, any>> {
  const { responseUrl } = await slack.slash(OPERATOR, text, { channelId: CHANNEL });
  const [r] = await fake.waitForResponds(responseUrl);
  return r.body;
}

/** The digest's figures as Slack shows them: each field's label and value. */
function fieldsOf(body: Record<string, any>): Record<string, string> {
  const out: Record<string, string> = {};
  const blocks = [...(body.blocks ?? []), ...(body.attachments ?? []).flatMap((a: any) => a.blocks)];
  for (const b of blocks)
    for (const f of b.fields ?? []) {
      const [label, value] = String(f.text).split('\n');
      out[label.replace(/\*/g, '')] = value;
    }
  return out;
}

describe('the daily digest through the whole bot', () => {
  it('makes a day on the emulator: a channel, a payment, an incident and a restart that comes back locked', async () => {
    expect(JSON.stringify(await slash('watch add alice kinds=status,payments,channels,lock'))).toContain(
      'status, payments, channels, lock',
    );
    expect(JSON.stringify(await slash('watch add bob kinds=payments,channels'))).toContain('payments, channels');
    await waitFor(async () => (await recorded('alice')) && (await recorded('bob')), { timeout: 15_000, what: 'the first polls' });

    await call('alice', 'connectpeer', { peer_pubkey_and_addr: `${h.emulator.world.pubkeyOf(ids.bob)}@127.0.0.1:9735` });
    await call('alice', 'openchannel', {
      peer_pubkey_and_opt_addr: h.emulator.world.pubkeyOf(ids.bob),
      capacity_sat: 100_000,
      push_msat: 0,
    });
    h.emulator.world.mine(1);
    await waitForPost('alice: channel opened with bob');
    await waitForPost('bob: channel opened with alice');

    const inv = (await call('bob', 'lninvoice', { amt_msat: 30_000_000, expiry_sec: 600 })).body as { invoice: string };
    expect(((await call('alice', 'sendpayment', { invoice: inv.invoice })).body as { status: string }).status).toBe('Succeeded');
    await waitForPost('bob: payment received, 30,000 sats');
    await waitForPost('alice: payment sent, 30,000 sats');

    await h.app.services.hosting.updateSettings(ids.alice, { webhookUrl: `${h.url}/webhooks/service/${ids.alice}` });
    h.emulator.setStatus(ids.alice, 'FAILED');
    await waitForPost('Incident #');
    h.emulator.setStatus(ids.alice, 'RUNNING');
    await waitFor(
      async () =>
        (await h.app.db.get(`SELECT 1 FROM notify_incidents WHERE node_id = ? AND state = 'resolved'`, [ids.alice])) !== undefined,
      {
        timeout: 15_000,
        what: 'the incident resolved',
      },
    );

    h.emulator.restartNode(ids.alice);
    await waitForPost('alice restarted and is LOCKED');
  });

  it('answers `report digest` with the day in one message: payments and totals per asset, channels, the incident and how long it lasted, the lock, alerts by kind', async () => {
    const body = await slash('report digest all');
    const text = JSON.stringify(body);
    expect(text).toContain('Daily digest: all');
    const fields = fieldsOf(body);
    // Both sides of the payment, and of the channel, were seen by the watches; nothing the day before.
    expect(fields['Payments in']).toBe('1 (+1)');
    expect(fields['Payments out']).toBe('1 (+1)');
    expect(fields['Channels opened']).toBe('2 (+2)');
    expect(fields['Incidents']).toBe('1 (+1)');
    expect(fields['Locks']).toBe('1 (+1)');
    expect(Number(fields['status']?.split(' ')[0])).toBeGreaterThanOrEqual(2);
    expect(fields['payments']).toBe('2 (+2)');
    // The totals per asset: a native table, valid for Slack.
    expect(messageTableProblems(body)).toEqual([]);
    const table = body.blocks.find((b: any) => b.type === 'table');
    expect(table.rows[1].map((c: any) => c.text)).toEqual(['BTC (sats)', '30,000', '30,000', '+30,000', '+30,000']);
    expect(text).toMatch(/#\d+ alice, RUNNING: lasted \d+/);
    expect(text).toContain('alice restarted LOCKED');
    // The chart goes with it.
    const uploads = await fake.waitForUploads(1, 30_000);
    expect(uploads.some((u) => u.filename === 'digest-all.png')).toBe(true);
  }, 60_000);

  it('refuses an unknown node or time zone with what to do', async () => {
    expect(JSON.stringify(await slash('report digest nobody'))).toContain('There is no node named');
    expect(JSON.stringify(await slash('report digest all tz=Mars/Olympus'))).toContain('is not a known time zone');
  });

  it('posts the digest to the channel on a schedule, like the other reports', async () => {
    const made = JSON.stringify(await slash('report schedule kind=digest node=bob cron="*/1 * * * * *"'));
    expect(made).toContain('Scheduled: digest report for bob');
    await waitForPost('Daily digest: bob');
    const post = fake
      .callsTo('chat.postMessage')
      .find((c) => c.args.channel === CHANNEL && JSON.stringify(c.args).includes('Daily digest: bob'))!;
    const figures = fieldsOf(post.args);
    // bob's own day: the payment it received, its side of the channel; alice's incident is not bob's.
    expect(figures['Payments in']).toBe('1 (+1)');
    expect(figures['Payments out']).toBe('0 (±0)');
    expect(figures['Incidents']).toBe('0 (±0)');
    const id = /Remove it with \/rln report unschedule (\d+)/.exec(made)?.[1];
    expect(JSON.stringify(await slash(`report unschedule ${id}`))).toContain(`Removed schedule ${id}`);
  }, 60_000);
});
