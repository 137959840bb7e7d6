/**
 * Upgrades an operator can trust (issue 25, item 4), through the whole bot on signed Slack requests
 * against the emulator: the confirmation of `node upgrade` (versions, what changes, a backup first), the
 * watching channel told "alice upgraded to … and is LOCKED" with an Unlock button, that button's private
 * dialog in the node's new generation (its indexer prefilled from UNLOCK_INDEXER_URL, titled with the
 * node's name), the check after the unlock that the node answers in that generation, and `asset send`
 * on the same node before and after. Then the service upgrading several nodes at once (one message,
 * one Unlock button per node), a node that comes back locked after a stop and start, a lock watch
 * started on a node that is already locked and announced.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSlackDriver, startFakeSlack, type FakeSlack, type SlackDriver } from '../../fakes/slack/index.js';
import { startHarness, type Harness } from '../../support/harness.js';
import { waitFor } from '../../support/wait-for.js';

const SIGNING_SECRET = 'upgrade-signing-secret-123';
const ADMIN = { id: 'UADM', name: 'ada' };
const CHANNEL = 'CUPGRADE';
const PASSWORD = 'demo-password-upgrade';
const INDEXER = '127.0.0.1:50001';

let fake: FakeSlack;
let h: Harness;
let slack: SlackDriver;
const ids: Record<string, string> = {};

beforeAll(async () => {
  fake = await startFakeSlack();
  h = await startHarness({
    env: {
      SLACK_BOT_TOKEN: 'xoxb-upgrade-bot-token',
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_API_URL: fake.apiUrl,
      ADMIN_USERS: `slack:${ADMIN.id}`,
      POLL_INTERVAL_S: '0.2',
      UNLOCK_INDEXER_URL: INDEXER,
      UPGRADE_BATCH_MS: '400',
    },
    emulator: { seed: 'demo', demoPassword: PASSWORD, lifecycleDelayMs: 200 },
  });
  slack = createSlackDriver(fake, 'http', { eventsUrl: `${h.url}/slack/events`, signingSecret: SIGNING_SECRET });
  for (const n of h.emulator.nodes()) ids[n.name] = n.nodeId;
  // The service tells the bot of the seeded nodes' status changes.
  for (const name of ['alice', 'bob']) {
    await h.app.services.hosting.updateSettings(ids[name], { webhookUrl: `${h.url}/webhooks/service/${ids[name]}` });
  }
}, 90_000);
afterAll(async () => {
  await h?.close();
  await fake?.close();
});

/** Top-level posts to the channel, as JSON text. */
const posts = () =>
  fake
    .callsTo('chat.postMessage')
    .filter((c) => c.args.channel === CHANNEL && !c.args.thread_ts)
    .map((c) => JSON.stringify(c.args));
const postsWith = (text: string) => posts().filter((p) => p.includes(text));
const waitForPost = (text: string, timeoutMs = 15_000) =>
  waitFor(() => postsWith(text)[0], { timeout: timeoutMs, what: `a post with "${text}"` });
/** Every answer the bot gave (respond() bodies and Web API posts) since `from`, as JSON text. */
const answersSince = (from: number) =>
  [
    ...fake.responds.map((r) => ({ seq: r.seq, text: JSON.stringify(r.body) })),
    ...fake.calls.map((c) => ({ seq: c.seq, text: JSON.stringify(c.args) })),
  ]
    .filter((x) => x.seq > from)
    .map((x) => plain(x.text));
const lastSeq = () => Math.max(0, ...fake.responds.map((r) => r.seq), ...fake.calls.map((c) => c.seq));
const waitForAnswer = (from: number, text: string, timeoutMs = 15_000) =>
  waitFor(() => answersSince(from).find((t) => t.includes(text)), { timeout: timeoutMs, what: `an answer with "${text}"` });

/** The action id of the button labelled `label` in a posted message or respond() body (JSON text). */
function buttonId(json: string, label: string): string {
  const blocks = (o: any): any[] => [...(o.blocks ?? []), ...(o.attachments ?? []).flatMap((a: any) => a.blocks ?? [])];
  const body = JSON.parse(json);
  const found = blocks(body.body ?? body)
    .filter((b: any) => b.type === 'actions')
    .flatMap((b: any) => b.elements)
    .find((e: any) => e.text.text === label);
  if (!found) throw new Error(`no button "${label}" in ${json.slice(0, 600)}`);
  return found.action_id;
}

/** Slack's renderer sets code apart with zero-width spaces: read without them. */
const plain = (json: string) => json.replace(/\u200b/g, '');

async function slash(text: string): Promise<string> {
  const { responseUrl } = await slack.slash(ADMIN, text, { channelId: CHANNEL });
  const [r] = await fake.waitForResponds(responseUrl);
  return plain(JSON.stringify(r.body));
}

/** Clicks a button and gives the answer posted to its response URL. */
async function click(actionId: string): Promise<string> {
  const { responseUrl } = await slack.click(ADMIN, actionId, { channelId: CHANNEL });
  const [r] = await fake.waitForResponds(responseUrl);
  return plain(JSON.stringify(r.body));
}

/** Clicks a button that opens a dialog, and gives the dialog. */
async function dialogOf(actionId: string): Promise<Record<string, any>> {
  const before = fake.callsTo('views.open').length;
  await slack.click(ADMIN, actionId, { channelId: CHANNEL });
  await fake.waitForCalls('views.open', before + 1);
  return fake.views.at(-1)!;
}

const nodeApi = (name: string, endpoint: string, body?: unknown) =>
  h.emulator.world.handle(ids[name], body === undefined ? 'GET' : 'POST', endpoint, body);

/** Sends 25 of alice's UPG to an invoice bob makes, through Slack, confirmed; the answer. */
async function sendAsset(assetId: string): Promise<string> {
  const invoiceText = await slash(`invoice rgb bob asset_id=${assetId} amount=25 raw=true`);
  const invoice = /(rgb:[^\s`"\\]*\/[^\s`"\\]+)/.exec(invoiceText)?.[1];
  expect(invoice, invoiceText.slice(0, 400)).toBeDefined();
  const asked = await slash(`asset send alice asset_id=UPG amount=25 raw=true recipient_id=${invoice}`);
  const answer = await click(buttonId(asked, 'Confirm'));
  // The transfer settles on both sides (alice's change too) once mined and refreshed.
  h.emulator.world.mine(1);
  await slash('asset refresh bob');
  await slash('asset refresh alice');
  h.emulator.world.mine(1);
  return answer;
}

describe('upgrades an operator can trust, on Slack', () => {
  let assetId = '';

  it('asset send works on alice, on the older image', async () => {
    expect(h.emulator.world.apiOf(ids.alice)).toBe('f379330');
    expect(await slash('watch add alice')).toContain('alice');
    // `wallet utxos` spends on-chain: it asks first, and the UTXOs are made once Confirm is clicked.
    for (const node of ['alice', 'bob']) {
      const made = await click(buttonId(await slash(`wallet utxos ${node} num=4 size=32500 fee_rate=2`), 'Confirm'));
      expect(made, made.slice(0, 400)).toContain('UTXOs created');
    }
    h.emulator.world.mine(1);
    const issued = await slash('asset issue-nia alice ticker=UPG name=Upgraded amounts=1000 precision=0');
    const confirmIssue = /"text":"Confirm"/.test(issued) ? await click(buttonId(issued, 'Confirm')) : issued;
    assetId = /(rgb:[A-Za-z0-9~_$!-]{10,})/.exec(confirmIssue)?.[1] ?? '';
    expect(assetId, confirmIssue.slice(0, 400)).not.toBe('');
    h.emulator.world.mine(1);
    const sent = await sendAsset(assetId);
    expect(sent).toMatch(/sent|Sent/);
  });

  it('node upgrade confirms with the versions, what changes for the operator, and a backup first', async () => {
    const asked = await slash('node upgrade alice');
    expect(asked).toMatch(/v0\.2\.0 → v0\.2\.1 \(node API f379330 → 6887cbf/);
    expect(asked).toContain('you will be asked to unlock it');
    expect(asked).toMatch(/backups taken before this upgrade cannot be restored on it \([^)]*\): take a new backup after unlocking/);
    expect(asked).toContain('`node unlock` asks for an indexer URL');
    expect(asked).toContain('`invoice rgb` takes an expiry and transport endpoints');
    expect(buttonId(asked, 'Back up, then upgrade')).toBeTruthy();
    expect(buttonId(asked, 'Confirm')).toBeTruthy();
  });

  it('after node upgrade alice is locked, an Unlock button is posted, the unlock works in the new generation, then asset send works', async () => {
    const asked = await slash('node upgrade alice');
    // Back up first: a private dialog asks the password; the backup is written, then the upgrade starts.
    const view = await dialogOf(buttonId(asked, 'Back up, then upgrade'));
    expect(view.blocks.some((b: { block_id?: string }) => b.block_id === 'backup_password')).toBe(true);
    const from = lastSeq();
    await slack.submit(ADMIN, view, { backup_password: PASSWORD });
    await waitForAnswer(from, 'Backup (before the upgrade)');

    // The channel watching alice is told when it is back: locked, with its own Unlock button.
    const post = await waitForPost('alice upgraded to v0.2.1 and is LOCKED');
    expect(h.emulator.world.apiOf(ids.alice)).toBe('6887cbf');
    expect((await nodeApi('alice', 'nodeinfo')).status).toBe(403);
    // The Unlock button opens the private dialog in the node's new generation, titled with its name (P50).
    const unlock = await dialogOf(buttonId(post, 'Unlock alice'));
    const said = JSON.stringify(unlock);
    expect(said).toContain('alice: Unlock a node');
    expect(said).not.toContain(ids.alice);
    const indexer = unlock.blocks.find((b: { block_id?: string }) => b.block_id === 'indexer_url');
    expect(indexer?.element.initial_value).toBe(INDEXER);
    const before = lastSeq();
    await slack.submit(ADMIN, unlock, { password: PASSWORD, indexer_url: indexer.element.initial_value });
    const unlocked = await waitForAnswer(before, 'alice is unlocked');
    expect(unlocked).toContain(`following the chain through its indexer ${INDEXER} (TransactionSync)`);
    // The bot checked that it answers in the new generation, and says so.
    expect(unlocked).toContain('It answers in the 6887cbf node API, as its image (v0.2.1) says');
    expect(postsWith('alice upgraded to')).toHaveLength(1);

    // asset send works on the same node, now through /sendrgb; /sendasset is gone there.
    const sent = await sendAsset(assetId);
    expect(sent).toMatch(/sent|Sent/);
    expect((await nodeApi('alice', 'sendasset', { asset_id: assetId })).status).toBe(404);
  });

  it('the service upgrading several nodes at once: one message lists every locked node, each with its own Unlock button', async () => {
    expect(await slash('watch add bob')).toContain('bob');
    h.emulator.setLatestImage('v0.3.0');
    const before = posts().length;
    await Promise.all(['alice', 'bob'].map((n) => h.app.services.hosting.upgradeNode(ids[n])));
    const post = await waitForPost('2 nodes upgraded, every one LOCKED');
    expect(post).toContain('alice upgraded to v0.3.0 and is LOCKED');
    expect(post).toContain('bob upgraded to v0.3.0 and is LOCKED');
    expect(buttonId(post, 'Unlock alice')).not.toBe(buttonId(post, 'Unlock bob'));
    // One message for the wave, not one per node.
    expect(
      posts()
        .slice(before)
        .filter((p) => p.includes('upgraded to v0.3.0')),
    ).toHaveLength(1);
    for (const name of ['alice', 'bob']) {
      const view = await dialogOf(buttonId(post, `Unlock ${name}`));
      const from = lastSeq();
      await slack.submit(ADMIN, view, { password: PASSWORD, indexer_url: INDEXER });
      await waitForAnswer(from, `${name} is unlocked`);
    }
  });

  it('a stopped and started node comes back locked, and a lock watch started then says so (P23, P49)', async () => {
    const made = await h.app.services.hosting.createNode({ name: 'dave', network: 'regtest', webhookUrl: `${h.url}/webhooks/service` });
    ids.dave = made.node.nodeId;
    const statusOf = () => h.emulator.nodes().find((n) => n.name === 'dave')?.status;
    await waitFor(() => statusOf() === 'RUNNING', { timeout: 10_000, what: 'dave RUNNING' });
    await h.emulator.world.seedReadyNode(ids.dave, PASSWORD);
    expect((await nodeApi('dave', 'nodeinfo')).status).toBe(200);
    await click(buttonId(await slash('node stop dave'), 'Confirm'));
    await waitFor(() => statusOf() === 'PAUSED', { timeout: 10_000, what: 'dave PAUSED' });
    await slash('node start dave');
    await waitFor(() => statusOf() === 'RUNNING', { timeout: 10_000, what: 'dave RUNNING again' });
    // RLN comes back locked after its process restarts, as the stop's confirmation says.
    expect((await nodeApi('dave', 'nodeinfo')).status).toBe(403);
    // A lock watch started on a node already locked announces it, with its Unlock button.
    await slash('watch add dave kinds=lock');
    const post = await waitForPost('dave is LOCKED');
    expect(buttonId(post, 'Unlock dave')).toBeTruthy();
  });
});
