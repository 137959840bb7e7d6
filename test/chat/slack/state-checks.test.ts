/**
 * Issue 12, §1 and §2, over Slack's wire format (signed HTTP requests to the real Bolt app, the
 * emulator as the service): a command that cannot run is refused before any dialog or button,
 * with the reason and the next step; and every confirmation or dialog shows the facts needed to
 * decide. The table at the end walks the registry: a command that asks without an entry fails it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSlackWorld, type SlackWorld } from '../../support/start-slack-world.js';
import { waitFor } from '../../support/wait-for.js';
import { startFakeSlack, createSlackDriver, type FakeSlack, type SlackDriver, type RespondCall } from '../../fakes/slack/index.js';
import { createNodeApiClient, type NodeApiClient } from '../../../src/node-api/index.js';
import { allCommands } from '../../../commands/index.js';
import { imageOf } from '../../../commands/node.js';

const SIGNING_SECRET = 'state-checks-signing-secret';
const ADMIN = { id: 'USTATE', name: 'sam' };
const VAULT_PASSWORD = 'vault-password-42';
const ADDRESS = 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080';
/** What the bot said, without the zero-width spaces the renderer puts around inline code. */
const textOf = (x: unknown) => JSON.stringify(x).replace(/\u200b/g, '');
const hasButtons = (r: RespondCall) => textOf(r.body).includes('"type":"actions"');

describe('state checks before asking, and the facts in every confirmation, on Slack', () => {
  let fake: FakeSlack;
  let h: SlackWorld;
  let slack: SlackDriver;
  const api: Record<string, NodeApiClient> = {};
  let bobPk = '';
  let channelId = '';
  /** On newer and newer2 (the latest image, 6887cbf): an IFA asset and an out-of-band send waiting for its ack. */
  let ifaId = '';
  let oobRecipient = '';

  const apiOf = (name: string) => {
    const n = h.emulator.nodes().find((x) => x.name === name)!;
    return createNodeApiClient({ baseUrl: n.invoke_url!, credentials: { kind: 'token', token: h.emulator.nodeApiToken }, retries: 0 });
  };

  async function ask(text: string): Promise<RespondCall> {
    return slack.ask(ADMIN, text);
  }

  /** A refusal that came before any dialog or button: no view opened, no button offered. */
  async function refusedBeforeAsking(text: string): Promise<string> {
    const views = fake.callsTo('views.open').length;
    const r = await ask(text);
    expect(hasButtons(r), text).toBe(false);
    expect(fake.callsTo('views.open'), text).toHaveLength(views);
    expect(r.body.response_type, text).toBe('ephemeral');
    return textOf(r.body);
  }

  /** The dialog a command opens (its view as Slack got it). */
  async function dialogOf(text: string): Promise<any> {
    const views = fake.callsTo('views.open').length;
    await slack.slash(ADMIN, text);
    await fake.waitForCalls('views.open', views + 1);
    return fake.views.at(-1)!;
  }

  async function createNode(name: string): Promise<void> {
    await ask(`node create ${name}`);
    await waitFor(() => h.emulator.nodes().find((n) => n.name === name)?.status === 'RUNNING', { timeout: 5000, what: `${name} RUNNING` });
  }

  beforeAll(async () => {
    fake = await startFakeSlack();
    h = await startSlackWorld('http', {
      SLACK_BOT_TOKEN: 'xoxb-state-bot',
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_API_URL: fake.apiUrl,
      ADMIN_USERS: `slack:${ADMIN.id}`,
      // node cert keeps a private key: the bot needs a key to seal it (else it refuses before asking).
      CREDENTIALS_KEY: Buffer.alloc(32, 9).toString('base64'),
    });
    slack = createSlackDriver(fake, 'http', { eventsUrl: `${h.url}/slack/events`, signingSecret: SIGNING_SECRET });
    api.alice = apiOf('alice');
    api.bob = apiOf('bob');
    bobPk = (await api.bob.nodeinfo()).pubkey!;
    // alice: an asset, and a channel to bob with some of it pushed to bob's side.
    await api.alice.createutxos({ num: 4, size: 32_500, fee_rate: 1, up_to: false, skip_sync: false });
    await api.bob.createutxos({ num: 4, size: 32_500, fee_rate: 1, up_to: false, skip_sync: false });
    h.emulator.world.mine(1);
    await api.alice.issueassetnia({ amounts: [100_000], ticker: 'UNT', name: 'Units', precision: 2 });
    const { temporary_channel_id } = await api.alice.openchannel({
      peer_pubkey_and_opt_addr: `${bobPk}@bob.peer.invalid:9735`,
      capacity_sat: 100_000,
      push_msat: 20_000_000,
      public: true,
      with_anchors: true,
    });
    h.emulator.world.mine(6);
    channelId = (await api.alice.getchannelid({ temporary_channel_id: temporary_channel_id })).channel_id!;
    // vault: initialised and locked; fresh: not initialised.
    await createNode('vault');
    await apiOf('vault').init({ password: VAULT_PASSWORD });
    await createNode('fresh');
    // newer and newer2: created by the service, so on its latest image (6887cbf), ready and funded; newer
    // holds an IFA asset (500.00 more allowed) and sent 12.00 of it to newer2 out of band, waiting for the ack.
    await createNode('newer');
    await createNode('newer2');
    for (const name of ['newer', 'newer2']) {
      await h.emulator.world.seedReadyNode(h.emulator.nodes().find((n) => n.name === name)!.nodeId, VAULT_PASSWORD);
      await apiOf(name).createutxos({ num: 4, size: 32_500, fee_rate: 1, up_to: false, skip_sync: false });
    }
    h.emulator.world.mine(1);
    const newer = apiOf('newer');
    ifaId = (
      await newer.issueassetifa({ amounts: [100_000], inflation_amounts: [50_000], ticker: 'IFX', name: 'Inflatable', precision: 2 })
    ).asset.asset_id;
    const oob = await apiOf('newer2').rgbinvoice({
      asset_id: ifaId,
      assignment: { type: 'Fungible', value: 1_200 },
      min_confirmations: 1,
      witness: false,
      transport_endpoints: [],
    });
    oobRecipient = oob.recipient_id;
    await newer.sendrgb({
      recipient_map: { [ifaId]: [{ recipient_id: oobRecipient, assignment: { type: 'Fungible', value: 1_200 }, transport_endpoints: [] }] },
      fee_rate: 2,
      min_confirmations: 1,
      donation: false,
      expiration_timestamp: Math.floor(Date.now() / 1000) + 3600,
    });
  }, 90_000);

  afterAll(async () => {
    await h?.close();
    await fake?.close();
  });

  describe('refuses at once, with the reason and the next step', () => {
    it('node stop and node shutdown of a PAUSED node', async () => {
      expect(await refusedBeforeAsking('node stop carol')).toContain('carol is already stopped (PAUSED); there is nothing to stop.');
      const shut = await refusedBeforeAsking('node shutdown carol');
      expect(shut).toContain('carol is PAUSED, not RUNNING: its node API does not answer, so it cannot shut down.');
      expect(shut).toContain('Start it with `/rln node start carol`.');
    });

    it("node start of a RUNNING node says so, not the service's 409", async () => {
      const t = textOf((await ask('node start alice')).body);
      expect(t).toContain('alice is already running; there is nothing to start.');
      expect(t).not.toContain('HTTP 409');
    });

    it('node upgrade of a node already on the latest image, and offers it again once a newer image exists', async () => {
      const runs = imageOf(h.emulator.nodes().find((n) => n.name === 'vault')!)!;
      expect(await refusedBeforeAsking('node upgrade vault')).toContain(
        `vault already runs the latest image, ${runs}: there is nothing to upgrade.`,
      );
      const offer = await ask('node upgrade alice');
      expect(hasButtons(offer)).toBe(true);
      expect(textOf(offer.body)).toMatch(new RegExp(`v[\\d.]+ → ${runs.replace(/\./g, '\\.')}`));
    });

    it('node init of an initialised node, node unlock of an unlocked one, backup and password of an unlocked one', async () => {
      const init = await refusedBeforeAsking('node init alice');
      expect(init).toContain('alice is already initialized and unlocked: there is nothing to initialize.');
      expect(await refusedBeforeAsking('node init vault')).toContain('Unlock it with `/rln node unlock vault`.');
      expect(await refusedBeforeAsking('node unlock alice')).toContain('alice is already unlocked.');
      expect(await refusedBeforeAsking('node unlock fresh')).toContain('Initialize it with `/rln node init fresh`.');
      for (const [cmd, what] of [
        ['node backup', 'back up'],
        ['node password', 'change its password'],
        ['node restore alice /backups/x.backup', 'restore a backup'],
      ] as const) {
        const t = await refusedBeforeAsking(`${cmd}${cmd.includes(' alice ') ? '' : ' alice'}`);
        expect(t).toContain(`alice is unlocked: the node can ${what} only while it is locked.`);
        expect(t).toContain('Lock it first with `/rln node lock alice`');
      }
      expect(await refusedBeforeAsking('node lock vault')).toContain('vault is already locked.');
    });

    it('checks the 8-character password rule and the repeated password in the dialog, before anything runs', async () => {
      const view = await dialogOf('node init fresh');
      // Slack's form itself refuses fewer than 8 characters; the submission check covers every platform.
      expect(view.blocks.find((b: any) => b.block_id === 'password').element.min_length).toBe(8);
      const short = await slack.submit(ADMIN, view, { password: 'short', password_repeat: 'short' });
      expect(short.ack.response_action).toBe('errors');
      expect(short.ack.errors.password).toBe('The password must have at least 8 characters; this one has 5.');
      const differ = await slack.submit(ADMIN, view, { password: 'long enough 1', password_repeat: 'long enough 2' });
      expect(differ.ack.errors.password_repeat).toContain('The two new passwords differ');
      expect(h.emulator.nodes().find((n) => n.name === 'fresh')!.initialized).toBeFalsy();
      expect(textOf(fake.calls)).not.toContain('long enough 1');
    });

    it('channel close of an unknown channel id', async () => {
      const t = await refusedBeforeAsking('channel close alice deadbeef00');
      expect(t).toContain('alice has no channel deadbeef00.');
      expect(t).toContain('channel list alice');
    });

    it('pay send of an invoice already paid, and of one that has expired', async () => {
      const { invoice } = await api.bob.lninvoice({ amt_msat: 1_000_000, expiry_sec: 600 });
      expect((await api.alice.sendpayment({ invoice })).status).toBe('Succeeded');
      const paid = await refusedBeforeAsking(`pay send alice ${invoice}`);
      expect(paid).toMatch(/alice already paid this invoice \(\d{4}-\d\d-\d\d \d\d:\d\d UTC\)\./);
      // Asked of another of our nodes: the payee, one of ours, says it was paid.
      expect(await refusedBeforeAsking(`pay send bob ${invoice}`)).toContain(
        'This invoice was paid already: bob, its payee, received the payment.',
      );
      const { invoice: short } = await api.bob.lninvoice({ amt_msat: 1_000_000, expiry_sec: 1 });
      await new Promise((r) => setTimeout(r, 1_100));
      const expired = await refusedBeforeAsking(`pay send alice ${short}`);
      expect(expired).toMatch(/This invoice expired at \d{4}-\d\d-\d\d \d\d:\d\d UTC: it can no longer be paid\./);
      expect(expired).toContain('Ask the payee for a new invoice.');
    });

    it('asset send whose RGB invoice asks for another amount or asset, or has expired, showing both sides', async () => {
      const unt = (await api.alice.listassets({ filter_asset_schemas: [] })).nia!.find((a) => a.ticker === 'UNT')!.asset_id;
      const { invoice } = await api.bob.rgbinvoice({
        asset_id: unt,
        assignment: { type: 'Fungible', value: 1_000 },
        min_confirmations: 1,
        witness: false,
      });
      const amount = await refusedBeforeAsking(`asset send alice UNT 12.5 ${invoice}`);
      expect(amount).toContain('The invoice asks for 10.00 UNT, but the send is of 12.50 UNT.');
      expect(amount).toContain('Send 10.00 UNT, as the invoice asks');
      const ok = await ask(`asset send alice UNT 10 ${invoice}`);
      expect(hasButtons(ok)).toBe(true);
      expect(textOf(ok.body)).toContain('asks for this amount of this asset');
      const { asset: other } = await api.alice.issueassetnia({ amounts: [500], ticker: 'OTH', name: 'Other', precision: 0 });
      const { invoice: forOther } = await api.bob.rgbinvoice({
        asset_id: other.asset_id,
        assignment: { type: 'Fungible', value: 5 },
        min_confirmations: 1,
        witness: false,
      });
      expect(await refusedBeforeAsking(`asset send alice UNT 5 ${forOther}`)).toMatch(
        /The invoice asks for OTH[^,]*, but the send is of UNT/,
      );
      const stale = `rgb:${unt.slice(4)}/~/~/bcrt:utxob:staleRecipient-one?expiry=1000&endpoints=rpc://127.0.0.1/json-rpc`;
      expect(await refusedBeforeAsking(`asset send alice UNT 5 ${stale}`)).toContain('The invoice expired at 1970-01-01 00:16 UTC');
    });

    it('a node name that matches two nodes by case, listing both', async () => {
      await createNode('Twin');
      await createNode('twin');
      const t = await refusedBeforeAsking('node stop TWIN');
      expect(t).toMatch(/`TWIN` matches 2 nodes: Twin \([^)]+\), twin \([^)]+\)\./);
      expect(t).toContain('Give the exact name, in its case, or the node id.');
    });
  });

  describe('confirmations and dialogs carry the facts', () => {
    it('node destroy warns of the funds the node still holds, and says a backup made here goes with the node', async () => {
      const view = await dialogOf('node destroy alice');
      const intro = textOf(view.blocks);
      expect(intro).toMatch(/Still holds: [\d,]+ sats on-chain, [\d,]+ sats in 1 channel, 1,000\.00 UNT/);
      expect(intro).toContain('the service offers no way to download it');
      expect(h.emulator.nodes().some((n) => n.name === 'alice')).toBe(true);
    });

    it('node restore confirms the overwrite with a box in its private dialog', async () => {
      const view = await dialogOf('node restore vault /backups/none.backup');
      expect(textOf(view.blocks)).toContain("Restoring overwrites the node's current wallet");
      const unticked = await slack.submit(ADMIN, view, { overwrite: false, password: VAULT_PASSWORD });
      expect(unticked.ack.response_action).toBe('errors');
      expect(unticked.ack.errors.overwrite).toContain('Tick the box to confirm');
    });
  });

  /**
   * Every command that asks (a button, a typed name or a dialog), and what its question must show.
   * A command added to the registry that asks and is not here fails the first test.
   */
  const FACTS: Record<string, { line: () => string; shows: RegExp[] }> = {
    'node stop': {
      line: () => 'node stop bob',
      shows: [/Goes offline\*\\nbob's node API and its 1 channel \(1 usable, [\d,]+ sats on our side\)/],
    },
    'node shutdown': { line: () => 'node shutdown bob', shows: [/Goes offline/, /until it is unlocked again/] },
    'node upgrade': { line: () => 'node upgrade bob', shows: [/Image\*\\nv[\d.]+ → v[\d.]+/, /Goes offline/] },
    'node lock': { line: () => 'node lock alice', shows: [/Goes offline\*\\nalice's node API and its 1 channel/, /node unlock alice/] },
    'node destroy': {
      line: () => 'node destroy bob',
      shows: [/Type the node's name to confirm/, /Still holds: [\d,]+ sats/, /no way to download it/],
    },
    'node init': { line: () => 'node init fresh', shows: [/At least 8 characters/, /password_repeat/] },
    'node unlock': { line: () => 'node unlock vault indexer_url=127.0.0.1:50001', shows: [/private: what you type is never shown/] },
    'node password': { line: () => 'node password vault', shows: [/new_password_repeat/, /At least 8 characters/] },
    'node backup': { line: () => 'node backup vault', shows: [/written to the node's own disk/, /lost if the node is destroyed/] },
    'node restore': { line: () => 'node restore vault /backups/x.backup', shows: [/overwrite/, /Replace this node's wallet/] },
    'wallet send': { line: () => `wallet send alice ${ADDRESS} 50k sats`, shows: [/50,000 sats/, /Estimated fee\*\\nabout [\d,]+ sats?/] },
    'channel open': {
      line: () => 'channel open alice bob 100k sats',
      shows: [/Peer\*\\nbob \(our node\)/, /100,000 sats committed on-chain/, /Estimated fee\*\\nabout [\d,]+ sats? on-chain/],
    },
    'channel close': {
      line: () => `channel close alice ${channelId.slice(0, 12)}`,
      shows: [/Peer\*\\nbob \(our node\)/, /Capacity\*\\n100,000 sats/, /Local \/ remote\*\\n[\d,]+ sats \/ [\d,]+ sats/],
    },
    'pay send': {
      line: () => 'pay send alice __INVOICE__',
      shows: [/Payee\*\\nbob \(our node\)/, /2,000 sats \(2,000,000 msat\)/, /Routing fee/],
    },
    'pay keysend': { line: () => 'pay keysend alice bob 3 sat', shows: [/3 sats \(3,000 msat\)/, /To\*\\nbob /, /Routing fee/] },
    'asset send': {
      line: () => `asset send alice UNT 2.5 utxob:someblindedrecipient transport_endpoints=rpc://127.0.0.1/json-rpc`,
      shows: [/Sends\*\\n2\.50 UNT/, /Fee rate\*\\n5 sat\/vB/],
    },
    'swap maker-execute': {
      line: () => `swap maker-execute alice 3000000/btc/10/__UNT__/9999999999/${'ab'.repeat(32)} ${'cd'.repeat(32)} bob`,
      shows: [/Taker\*\\nbob \(our node\)/, /Maker sends\*\\n3,000 sats/, /Maker receives\*\\n0\.10 UNT/],
    },
    'wallet utxos': {
      line: () => 'wallet utxos alice num=3 size=40k fee_rate=2',
      // 2 sat/vB × (110 + 31 × 4) vB = 468 sats.
      shows: [/UTXOs\*\\n3 of 40,000 sats/, /Fee\*\\nabout 468 sats at 2 sat\/vB/],
    },
    'asset fail': {
      line: () => 'asset fail alice batch_transfer_idx=7',
      shows: [/Fails\*\\ntransfer #7, if it still waits for the counterparty/],
    },
    'asset issue-ifa': {
      line: () => 'asset issue-ifa newer USDX "Dollar X" 1000;250 inflation=500 precision=2',
      shows: [
        /Issues now\*\\n1,250\.00 USDX \(2 allocation\(s\)\)/,
        /Can inflate by\*\\n500\.00 USDX/,
        /Max supply\*\\n1,750\.00 USDX \(cannot be raised later\)/,
        /Precision\*\\n2/,
      ],
    },
    'asset inflate': {
      line: () => `asset inflate newer ${ifaId} 200 fee_rate=3`,
      shows: [
        /Issues\*\\n200\.00 IFX more \(1 allocation\(s\)\)/,
        /Known circulating\*\\n1,000\.00 IFX → 1,200\.00 IFX/,
        /Max supply\*\\n1,500\.00 IFX/,
        /Fee rate\*\\n3 sat\/vB/,
      ],
    },
    'asset ack': {
      line: () => `asset ack newer ${oobRecipient}`,
      shows: [/Sends\*\\n12\.00 IFX/, /Txid\*\\n`?[0-9a-f]{64}/, /the transfer can no longer be cancelled/],
    },
    'node cert': {
      line: () => 'node cert bob',
      shows: [/new key and client certificate for bob's API/, /presents the certificate on its calls to bob/, /Kept now\*\\nnone/],
    },
  };

  it('has an entry for every command that asks for a confirmation or a dialog', () => {
    const asking = allCommands
      .filter((d) => d.confirm !== 'none' || (d.secrets?.length ?? 0) > 0)
      .map((d) => d.path)
      .sort();
    expect(Object.keys(FACTS).sort()).toEqual(asking);
  });

  it.each(Object.keys(FACTS))('%s asks with the facts it should show', async (path) => {
    const { line, shows } = FACTS[path];
    let text = line();
    if (text.includes('__INVOICE__'))
      text = text.replace('__INVOICE__', (await api.bob.lninvoice({ amt_msat: 2_000_000, expiry_sec: 600 })).invoice);
    if (text.includes('__UNT__'))
      text = text.replace(
        '__UNT__',
        (await api.alice.listassets({ filter_asset_schemas: [] })).nia!.find((a) => a.ticker === 'UNT')!.asset_id,
      );
    const def = allCommands.find((d) => d.path === path)!;
    let said: string;
    if (def.confirm === 'button') {
      const r = await ask(text);
      expect(hasButtons(r), textOf(r.body)).toBe(true);
      said = textOf(r.body);
    } else {
      said = textOf(await dialogOf(text));
    }
    for (const re of shows) expect(said, `${path}: ${re}`).toMatch(re);
  });
});
