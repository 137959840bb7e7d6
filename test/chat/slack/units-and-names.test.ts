/**
 * Issue 12 over Slack's wire format (signed HTTP requests to the real Bolt app): amounts in the
 * units people use, our nodes by name where a pubkey is asked, and refusals that say what an
 * argument takes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSlackWorld, type SlackWorld } from '../../support/start-slack-world.js';
import { startFakeSlack, createSlackDriver, type FakeSlack, type SlackDriver, type RespondCall } from '../../fakes/slack/index.js';
import { createNodeApiClient } from '../../../src/node-api/index.js';

const SIGNING_SECRET = 'units-signing-secret-abcdef';
const ADMIN = { id: 'UADMIN', name: 'ada' };
const ADDRESS = 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080';
/** What the bot said, without the zero-width spaces the renderer puts around inline code. */
const textOf = (r: RespondCall) => JSON.stringify(r.body).replace(/\u200b/g, '');
const hasButtons = (r: RespondCall) => textOf(r).includes('"type":"actions"');

describe('amounts, names and refusals on Slack', () => {
  let fake: FakeSlack;
  let h: SlackWorld;
  let slack: SlackDriver;

  beforeAll(async () => {
    fake = await startFakeSlack();
    h = await startSlackWorld('http', {
      SLACK_BOT_TOKEN: 'xoxb-units-bot',
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_API_URL: fake.apiUrl,
      ADMIN_USERS: `slack:${ADMIN.id}`,
    });
    slack = createSlackDriver(fake, 'http', { eventsUrl: `${h.url}/slack/events`, signingSecret: SIGNING_SECRET });
  }, 90_000);

  afterAll(async () => {
    await h?.close();
    await fake?.close();
  });

  async function ask(text: string): Promise<RespondCall> {
    return slack.ask(ADMIN, text);
  }

  it('keysends to one of our nodes by name, with the amount typed as "3 sat", and names the payee in the confirmation', async () => {
    const r = await ask('pay keysend alice bob 3 sat');
    expect(hasButtons(r)).toBe(true);
    const text = textOf(r);
    expect(text).toContain('3 sats (3,000 msat)');
    expect(text).toMatch(/bob `0[23][0-9a-f]{10}/);
  });

  it('asks to confirm an on-chain send with the amount in sats and the estimated fee', async () => {
    const r = await ask(`wallet send alice ${ADDRESS} 50k sats`);
    expect(hasButtons(r)).toBe(true);
    const text = textOf(r);
    expect(text).toContain('50,000 sats');
    expect(text).toMatch(/Estimated fee\*\\nabout [\d,]+ sats? \(141 vB, one input\)/);
  });

  it('refuses an amount with more decimals than sats have, naming the argument and an example, with no button', async () => {
    const r = await ask(`wallet send alice ${ADDRESS} 1.5 sat`);
    expect(hasButtons(r)).toBe(false);
    expect(textOf(r)).toContain('Argument `amount` is not valid: it is not a whole number of sats; give 100000, 100k sats or 0.001 BTC.');
  });

  it('refuses a name that is no node where a pubkey is asked, saying what the argument takes', async () => {
    const r = await ask('peer disconnect alice nobody');
    expect(textOf(r)).toContain('`peer_pubkey` takes a node pubkey (66 hex digits) or the name of one of your nodes');
  });

  it('says what an argument takes instead of the validator text', async () => {
    const fee = textOf(await ask('wallet fee alice six'));
    expect(fee).toContain('Argument `blocks` is not valid: expected a whole number, such as 5.'); // a count of blocks: no 2.5 (P25)
    expect(fee).toContain('Example: /rln wallet fee alice 6');
    expect(fee).not.toContain('Invalid input');
    const page = textOf(await ask('node list page=1.5'));
    expect(page).toContain('Argument `page` is not valid: expected a whole number, such as 5.');
    expect(page).not.toContain('expected int');
  });

  it('reads an asset amount in display units with the asset’s precision, and refuses more decimals before any button', async () => {
    const alice = h.emulator.nodes().find((n) => n.name === 'alice')!;
    const api = createNodeApiClient({
      baseUrl: alice.invoke_url!,
      credentials: { kind: 'token', token: h.emulator.nodeApiToken },
      retries: 0,
    });
    await api.createutxos({ num: 2, size: 32_500, fee_rate: 1, up_to: false, skip_sync: false });
    h.emulator.world.mine(1);
    await api.issueassetnia({ amounts: [100_000], ticker: 'UNT', name: 'Units', precision: 2 });
    const recipient = 'utxob:someblindedrecipient transport_endpoints=rpc://127.0.0.1/json-rpc';
    const ok = await ask(`asset send alice UNT 12.5 UNT ${recipient}`);
    expect(hasButtons(ok)).toBe(true);
    expect(textOf(ok)).toContain('12.50 UNT');
    const bare = await ask(`asset send alice UNT 7 ${recipient}`);
    expect(textOf(bare)).toContain('7.00 UNT');
    const fine = await ask(`asset send alice UNT 1.234 ${recipient}`);
    expect(hasButtons(fine)).toBe(false);
    expect(textOf(fine)).toContain('`amount` is not a valid amount: UNT has 2 decimals at most.');
    const other = await ask(`asset send alice UNT 5 BTC ${recipient}`);
    expect(hasButtons(other)).toBe(false);
    expect(textOf(other)).toContain('it is in BTC, but the asset is UNT');
  });

  it('says a webhook URL must be HTTPS', async () => {
    const r = await ask('node settings alice webhook=http://bot.example.com/hook');
    expect(textOf(r)).toContain('the URL must be HTTPS');
    expect(textOf(r)).not.toContain('Invalid URL');
  });

  it('shows help for /rln with no text and for /rln audit help', async () => {
    expect(textOf(await ask(''))).toContain('rln-chatops commands');
    const audit = textOf(await ask('audit help'));
    expect(audit).toContain('/rln audit');
    expect(audit).not.toContain('Audit trail');
  });
});
