/**
 * The dashboard and QR codes on Discord, end to end: the whole bot (harness, emulator) on the
 * fake Discord's gateway. /rln status answers with every node; invoice ln's QR code is posted
 * to the channel as an attachment that decodes to the invoice.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/harness.js';
import { commandInteraction, startFakeDiscord, type FakeDiscord } from '../../fakes/discord/index.js';
import { buttonsOf, gatewayAnswer, textOf } from '../../support/discord-e2e.js';
import { decodeQr } from '../../support/decode-png.js';

const OPERATOR = { userId: '100000000000000012', channelId: '900000000000000888' };

let fake: FakeDiscord;
let h: Harness;

beforeAll(async () => {
  fake = await startFakeDiscord();
  h = await startHarness({
    emulator: { seed: 'demo', demoPassword: 'demo-password-visuals', lifecycleDelayMs: 20 },
    env: {
      DISCORD_TOKEN: 'discord-bot-token-for-visuals-0123456789',
      DISCORD_APPLICATION_ID: fake.applicationId,
      DISCORD_API_URL: fake.apiUrl,
      OPERATOR_USERS: `discord:${OPERATOR.userId}`,
    },
  });
  await fake.identified();
}, 90_000);
afterAll(async () => {
  await h?.close();
  await fake?.close();
});

describe('visual answers on Discord', () => {
  it('/rln status lists every emulated node with its state and a button to open each', async () => {
    const a = await gatewayAnswer(fake, commandInteraction(fake.applicationId, OPERATOR, undefined, 'status'));
    const text = textOf(a.data);
    for (const n of h.emulator.nodes()) {
      expect(text).toContain(n.name);
      expect(text).toContain(n.status);
    }
    const labels = buttonsOf(a.data).map((b) => b.label);
    for (const n of h.emulator.nodes().slice(0, 8)) expect(labels).toContain(`${n.name}: details`);
  });

  it('invoice ln posts its QR code to the channel as an attachment that decodes to the invoice', async () => {
    const from = fake.calls.length ? fake.calls[fake.calls.length - 1].seq : 0;
    const a = await gatewayAnswer(
      fake,
      commandInteraction(fake.applicationId, OPERATOR, 'invoice', 'ln', { node: 'alice', amt_msat: '2000000' }),
    );
    const invoice = /(ln[a-z0-9]+)/.exec(textOf(a.data))?.[1];
    expect(invoice).toBeTruthy();
    const post = await fake.waitForCall(
      (c) => c.method === 'POST' && c.path === `/channels/${OPERATOR.channelId}/messages` && Boolean(c.files?.length),
      { from, timeoutMs: 10_000 },
    );
    expect(post.files![0].name).toBe('invoice-ln.png');
    expect(post.body.attachments[0].filename).toBe('invoice-ln.png');
    expect(decodeQr(post.files![0].bytes)).toBe(invoice);
  });
});
