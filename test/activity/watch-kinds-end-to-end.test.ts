/**
 * The watch kinds of issue 28 through the whole bot: for each, the demo's fault (`/demo <fault>
 * <node>`, the emulator's NodeWorld.fault) on a node watched with that kind posts its alert with
 * its button, and its undoing posts the recovery once. alice runs an image that speaks f379330,
 * dave one that speaks 6887cbf (the emulator models each fault on both). The poller runs every
 * 0.2 s; the fault asks it to poll the node at once (as the demo does), so nothing waits on a sleep,
 * and posts to one channel are paced 0.1 s apart instead of Slack's second.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSlackDriver, startFakeSlack, type FakeSlack, type SlackDriver } from '../fakes/slack/index.js';
import { startHarness, type Harness } from '../support/harness.js';
import { waitFor } from '../support/wait-for.js';

const SIGNING_SECRET = 'watch-kinds-signing-secret';
const OPERATOR = { id: 'UOPS', name: 'otto' };
const PASSWORD = 'demo-password';
const INDEXER = '127.0.0.1:50001';

let fake: FakeSlack;
let h: Harness;
let slack: SlackDriver;
const ids: Record<string, string> = {};

beforeAll(async () => {
  fake = await startFakeSlack();
  h = await startHarness({
    env: {
      SLACK_BOT_TOKEN: 'xoxb-watch-kinds-token',
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_API_URL: fake.apiUrl,
      OPERATOR_USERS: `slack:${OPERATOR.id}`,
      POLL_INTERVAL_S: '0.2',
      WATCH_INDEXER_URL: INDEXER,
    },
    emulator: { seed: 'demo', demoPassword: PASSWORD },
    // Each test posts an alert and its recovery to one channel: they need not be a second apart.
    pacing: { perChannelIntervalMs: 100 },
  });
  slack = createSlackDriver(fake, 'http', { eventsUrl: `${h.url}/slack/events`, signingSecret: SIGNING_SECRET });
  // dave: a new node, on the latest image (6887cbf), initialised and unlocked.
  const auth = { authorization: `Bearer ${h.emulator.token}`, 'content-type': 'application/json' };
  const created = await fetch(`${h.emulator.url}/api/nodes`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ name: 'dave', network: 'regtest' }),
  });
  const dave = ((await created.json()) as { data: { nodeId: string } }).data.nodeId;
  await waitFor(() => h.emulator.nodes().find((n) => n.nodeId === dave)?.status === 'RUNNING', { what: 'dave RUNNING' });
  await h.emulator.world.seedReadyNode(dave, PASSWORD);
  for (const n of h.emulator.nodes()) ids[n.name] = n.nodeId;
  expect(h.emulator.world.apiOf(ids.alice)).toBe('f379330');
  expect(h.emulator.world.apiOf(ids.dave)).toBe('6887cbf');
}, 90_000);
afterAll(async () => {
  await h?.close();
  await fake?.close();
});

const postsIn = (channel: string) =>
  fake
    .callsTo('chat.postMessage')
    .filter((c) => c.args.channel === channel && !c.args.thread_ts)
    .map((c) => JSON.stringify(c.args));
const postsWith = (channel: string, text: string) => postsIn(channel).filter((p) => p.includes(text));
const waitForPost = (channel: string, text: string) =>
  waitFor(() => postsWith(channel, text)[0], { what: () => `a post with "${text}" in ${channel}; posts: ${postsIn(channel).join('\n')}` });
const call = (name: string, endpoint: string, body?: unknown) =>
  h.emulator.world.handle(ids[name], body === undefined ? 'GET' : 'POST', endpoint, body);
/** Whether the poller has kept the node's state since `after` (a poll went through). */
const polledSince = async (name: string, after: number) =>
  ((await h.app.db.get<{ polled_at: number }>('SELECT polled_at FROM activity_states WHERE node_id = ?', [ids[name]]))?.polled_at ?? 0) >
  after;
/** Waits for `n` polls of the node that came after now. */
async function polls(name: string, n = 2): Promise<void> {
  for (let i = 0; i < n; i++) {
    const t = Date.now();
    await waitFor(() => polledSince(name, t), { what: `a poll of ${name}` });
  }
}

async function slash(channel: string, text: string): Promise<string> {
  const { responseUrl } = await slack.slash(OPERATOR, text, { channelId: channel });
  const [r] = await fake.waitForResponds(responseUrl);
  return JSON.stringify(r.body);
}

/** The buttons of a Slack message, with their labels. */
function buttonIds(body: Record<string, any>): Array<{ id: string; label: string }> {
  const blocks = [...(body.blocks ?? []), ...(body.attachments ?? []).flatMap((a: any) => a.blocks ?? [])];
  return blocks
    .filter((b: any) => b.type === 'actions')
    .flatMap((b: any) => b.elements.map((e: any) => ({ id: e.action_id, label: e.text.text })));
}

/** The fault as `/demo <fault> <node>` injects it: in the emulator, then the node polled at once. */
function fault(name: string, f: Parameters<Harness['emulator']['fault']>[1]): string {
  const said = h.emulator.fault(ids[name], f);
  h.app.activity.checkSoon(ids[name]);
  return said;
}

async function expectAlertThenRecovery(o: {
  channel: string;
  node: string;
  alert: string;
  button: string;
  inject: () => unknown;
  undo: () => unknown;
  recovery: string;
}): Promise<void> {
  o.inject();
  const alert = await waitForPost(o.channel, o.alert);
  expect(alert).toContain(`"text":"${o.button}"`);
  o.undo();
  h.app.activity.checkSoon(ids[o.node]);
  await waitForPost(o.channel, o.recovery);
  await polls(o.node);
  expect(postsWith(o.channel, o.alert)).toHaveLength(1);
  expect(postsWith(o.channel, o.recovery)).toHaveLength(1);
}

describe('the watch kinds through the whole bot, each fault on a node watched with its kind', () => {
  it('utxos (f379330 and 6887cbf): UTXOs used up → "free colourable UTXOs" with Create UTXOs; new UTXOs → recovered once', async () => {
    for (const [node, channel] of [
      ['alice', 'CUTXOSA'],
      ['dave', 'CUTXOSD'],
    ] as const) {
      expect(await slash(channel, `watch add ${node} kinds=utxos`)).toContain('utxos');
      await call(node, 'createutxos', { num: 3, size: 32_500, fee_rate: 5 });
      await polls(node);
      expect(postsIn(channel)).toHaveLength(0);
      await expectAlertThenRecovery({
        channel,
        node,
        alert: `${node}: 0 free colourable UTXOs (below 2)`,
        button: 'Create UTXOs',
        inject: () => fault(node, 'utxos-used-up'),
        undo: () => call(node, 'createutxos', { num: 3, size: 32_500, fee_rate: 5 }),
        recovery: `${node}: free colourable UTXOs back to 2 or more`,
      });
    }
  });

  it("utxos: the alert's Create UTXOs asks to confirm, with the fee, then makes them; the next episode is told again", async () => {
    fault('alice', 'utxos-used-up');
    await waitFor(() => postsWith('CUTXOSA', 'alice: 0 free colourable UTXOs').length === 2, { what: 'the second episode' });
    const alert = JSON.parse(postsWith('CUTXOSA', 'alice: 0 free colourable UTXOs')[1]) as Record<string, any>;
    const create = buttonIds(alert).find((b) => b.label === 'Create UTXOs')!;
    const asked = await slack.click(OPERATOR, create.id, { channelId: 'CUTXOSA' });
    const [confirmation] = await fake.waitForResponds(asked.responseUrl);
    const text = JSON.stringify(confirmation.body);
    expect(text).toMatch(/Fee[^"]*"?[^"]*about [\d,]+ sats at 5 sat\/vB/);
    const confirm = buttonIds(confirmation.body).find((b) => /confirm|create|utxos/i.test(b.label))!;
    const done = await slack.click(OPERATOR, confirm.id, { channelId: 'CUTXOSA' });
    await fake.waitForResponds(done.responseUrl);
    h.app.activity.checkSoon(ids.alice);
    await waitFor(() => postsWith('CUTXOSA', 'alice: free colourable UTXOs back to 2 or more').length === 2, {
      what: 'the second recovery',
    });
  });

  it("utxos: a watch's own utxos_below overrides the account's", async () => {
    // dave now has 3 free: not below the default 2, below a watch's 4.
    expect(await slash('CUTXOSD', 'watch add dave kinds=utxos utxos_below=4')).toContain('utxos_below=4');
    h.app.activity.checkSoon(ids.dave);
    await waitForPost('CUTXOSD', 'dave: 3 free colourable UTXOs (below 4)');
  });

  it('transfers (f379330 and 6887cbf): a stuck transfer near expiry → its facts with Refresh and Fail it; failed → recovered once', async () => {
    for (const [node, channel] of [
      ['alice', 'CXFERA'],
      ['dave', 'CXFERD'],
    ] as const) {
      expect(await slash(channel, `watch add ${node} kinds=transfers`)).toContain('transfers');
      await polls(node);
      let idx = '';
      await expectAlertThenRecovery({
        channel,
        node,
        alert: 'stuck: WaitingCounterparty for 2h',
        button: 'Fail it',
        inject: () => {
          idx = /#(\d+)/.exec(fault(node, 'stuck-transfer'))![1];
        },
        undo: () => call(node, 'failtransfers', { batch_transfer_idx: Number(idx), skip_sync: true }),
        // Not `${node}: RGB transfer #`, which the alert itself says.
        recovery: 'is no longer stuck',
      });
      const alert = postsWith(channel, 'stuck: WaitingCounterparty')[0];
      expect(alert).toContain('expires in');
      expect(alert).toContain('"text":"Refresh"');
    }
  });

  it('infra (f379330 and 6887cbf): the indexer down → "its indexer does not answer" with Check again; back → recovered once', async () => {
    for (const [node, channel] of [
      ['alice', 'CINFRAA'],
      ['dave', 'CINFRAD'],
    ] as const) {
      expect(await slash(channel, `watch add ${node} kinds=infra`)).toContain('infra');
      await polls(node);
      await expectAlertThenRecovery({
        channel,
        node,
        alert: `${node}: its indexer does not answer`,
        button: 'Check again',
        inject: () => fault(node, 'indexer-down'),
        undo: () => fault(node, 'heal'),
        recovery: `${node}: its indexer answers again`,
      });
      expect(postsWith(channel, 'failed to connect to 127.0.0.1:50001')).toHaveLength(1);
    }
  });

  it('liveness (f379330 and 6887cbf): the API answering 500 while RUNNING → "the service says RUNNING, but its API has failed 3 times" with Logs and Restart; back → recovered once', async () => {
    for (const [node, channel] of [
      ['alice', 'CLIVEA'],
      ['dave', 'CLIVED'],
    ] as const) {
      expect(await slash(channel, `watch add ${node} kinds=liveness`)).toContain('liveness');
      await polls(node);
      await expectAlertThenRecovery({
        channel,
        node,
        alert: `${node}: the service says RUNNING, but its API has failed 3 times since`,
        button: 'Restart',
        inject: () => fault(node, 'api-dead'),
        undo: () => fault(node, 'heal'),
        recovery: `${node}: its API answers again`,
      });
      expect(postsWith(channel, 'its API has failed')[0]).toContain('"text":"Logs"');
      expect(h.emulator.nodes().find((n) => n.nodeId === ids[node])?.status).toBe('RUNNING');
    }
  });

  it('peers (f379330 and 6887cbf): a channel peer gone → its facts; reconnected → recovered once', async () => {
    for (const [node, channel] of [
      ['bob', 'CPEERB'],
      ['dave', 'CPEERD'],
    ] as const) {
      expect(await slash(channel, `watch add ${node} kinds=peers peer_gone_after=0`)).toContain('peer_gone_after=0');
      await polls(node);
      await expectAlertThenRecovery({
        channel,
        node,
        alert: 'disconnected for',
        button: 'Peers',
        inject: () => fault(node, 'peer-gone'),
        undo: () => fault(node, 'heal'),
        recovery: 'is connected again',
      });
    }
  });

  it('backup (f379330 and 6887cbf): the service\'s record 30 days old, never backed up → "no backup in 7 days" with Back up; its Back up locks the node first, confirmed → recovered once', async () => {
    for (const [node, channel] of [
      ['alice', 'CBACKA'],
      ['dave', 'CBACKD'],
    ] as const) {
      expect(await slash(channel, `watch add ${node} kinds=backup`)).toContain('backup');
      h.app.activity.checkSoon(ids[node]);
      await polls(node);
      // A node created minutes ago has not been without a backup for 7 days.
      expect(postsIn(channel)).toHaveLength(0);
      expect(fault(node, 'backup-old')).toContain('30 days ago');
      const alert = await waitForPost(channel, `${node}: no backup in 7 days`);
      expect(alert).toContain('"text":"Back up"');
      // RLN backs up a locked node only (/backup answers 403 UnlockedNode on both generations), and the node is
      // unlocked: the alert's own button asks, in its private dialog, to lock it for the backup, and says until when.
      expect((await call(node, 'backup', { backup_path: '/backups/direct.backup', password: PASSWORD })).status).toBe(403);
      const views = fake.callsTo('views.open').length;
      const button = buttonIds(JSON.parse(alert) as Record<string, any>).find((b) => b.label === 'Back up')!;
      await slack.click(OPERATOR, button.id, { channelId: channel });
      await fake.waitForCalls('views.open', views + 1);
      const view = fake.views.at(-1)!;
      const asked = JSON.stringify(view);
      expect(asked).toContain(`Lock ${node} for the backup`);
      expect(asked).toContain('stays locked after');
      expect(asked).toContain(`node unlock ${node}`);
      // The box is the confirmation: left unticked, nothing is done and the node stays unlocked.
      const unticked = await slack.submit(OPERATOR, view, { lock_first: false, password: PASSWORD });
      expect(unticked.ack.response_action).toBe('errors');
      expect(unticked.ack.errors.lock_first).toContain('Tick the box');
      expect((await call(node, 'nodeinfo')).status).toBe(200);
      await slack.submit(OPERATOR, view, { lock_first: true, password: PASSWORD });
      await waitFor(
        async () => (await h.app.services.audit.query({ node: ids[node], action: 'node backup', outcome: 'ok', limit: 1 })).length === 1,
        {
          what: `the backup of ${node} in the audit trail`,
        },
      );
      const [audited] = await h.app.services.audit.query({ node: ids[node], action: 'node backup', outcome: 'ok', limit: 1 });
      expect(JSON.stringify(audited.args)).toContain('lock_first');
      // It is locked now, and the answer says so, with the button that unlocks it.
      expect((await call(node, 'nodeinfo')).status).toBe(403);
      const answer = await waitForPost(channel, `${node} was locked for the backup and is still locked`);
      expect(answer).toContain(`"text":"Unlock ${node}"`);
      await h.emulator.world.seedReadyNode(ids[node], PASSWORD);
      h.app.activity.checkSoon(ids[node]);
      await waitForPost(channel, `${node}: backed up again`);
      h.app.activity.checkSoon(ids[node]);
      await polls(node);
      expect(postsWith(channel, 'no backup in 7 days')).toHaveLength(1);
      expect(postsWith(channel, 'backed up again')).toHaveLength(1);
    }
  });
});
