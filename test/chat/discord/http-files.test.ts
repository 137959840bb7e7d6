/**
 * Discord over HTTP interactions only (no bot token, as a team running replicas behind a load
 * balancer may): an answer's files still reach the channel, as a follow-up message with the
 * files attached, through the interaction's own webhook (which needs no token).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/harness.js';
import { commandInteraction, createInteractionSigner, startFakeDiscord, type FakeDiscord } from '../../fakes/discord/index.js';
import { textOf } from '../../support/discord-e2e.js';
import { decodeQr } from '../../support/decode-png.js';

const OPERATOR = { userId: '100000000000000033', channelId: '900000000000000333' };
const signer = createInteractionSigner();
let fake: FakeDiscord;
let h: Harness;

beforeAll(async () => {
  fake = await startFakeDiscord();
  h = await startHarness({
    emulator: { seed: 'demo', demoPassword: 'demo-password-http-files', lifecycleDelayMs: 20 },
    env: {
      DISCORD_APPLICATION_ID: fake.applicationId,
      DISCORD_PUBLIC_KEY: signer.publicKeyHex,
      DISCORD_API_URL: fake.apiUrl,
      OPERATOR_USERS: `discord:${OPERATOR.userId}`,
    },
  });
}, 90_000);
afterAll(async () => {
  await h?.close();
  await fake?.close();
});

describe('files of an answer over HTTP interactions, without a bot token', () => {
  it('invoice ln answers with the invoice, then a follow-up carrying its QR code through the interaction webhook', async () => {
    const interaction = commandInteraction(fake.applicationId, OPERATOR, 'invoice', 'ln', { node: 'alice', amt_msat: '2000000' });
    const body = JSON.stringify(interaction);
    const res = await fetch(`${h.url}/discord/interactions`, { method: 'POST', headers: signer.headers(body), body });
    expect(res.status).toBe(200);
    const first = (await res.json()) as { type: number; data?: unknown };
    // Answered at once (type 4) or deferred (type 5) and finished by editing the original.
    const answered =
      first.type === 4
        ? first.data
        : (
            await fake.waitForCall(
              (c) => c.method === 'PATCH' && c.path === `/webhooks/${fake.applicationId}/${interaction.token}/messages/@original`,
              { timeoutMs: 10_000 },
            )
          ).body;
    const invoice = /(ln[a-z0-9]+)/.exec(textOf(answered))?.[1];
    expect(invoice).toBeTruthy();
    const followUp = await fake.waitForCall(
      (c) => c.method === 'POST' && c.path === `/webhooks/${fake.applicationId}/${interaction.token}` && Boolean(c.files?.length),
      { timeoutMs: 10_000 },
    );
    expect(followUp.authorization).toBeUndefined();
    expect(followUp.files![0].name).toBe('invoice-ln.png');
    expect(followUp.body.attachments[0].filename).toBe('invoice-ln.png');
    expect(decodeQr(followUp.files![0].bytes)).toBe(invoice);
  });
});
