/**
 * Four eyes on money, end to end over Discord's signed HTTP interactions (POST
 * /discord/interactions, Ed25519) against the emulator: a payment above the threshold waits for a
 * second admin, the requester's own approval is refused, a double click pays once, a send over the
 * daily limit is refused with what is left, an expired request cannot be approved, and a scoped
 * operator cannot stop another node.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buttonInteraction, commandInteraction } from '../../fakes/discord/index.js';
import { startDiscordBot, type DiscordBot } from '../../support/start-discord-bot.js';
import { buttonsOf, finishAnswer, textOf, type Answer } from '../../support/discord-e2e.js';

const ADA = { userId: '100000000000000011' };
const BEA = { userId: '100000000000000012' };
const CY = { userId: '100000000000000013' };
const SAM = { userId: '100000000000000014' };
const PASSWORD = 'discord-approvals-password';

let h: DiscordBot;
let app: string;
/** How far the bot's clock is ahead of the real one. */
let ahead = 0;

beforeAll(async () => {
  h = await startDiscordBot({
    gateway: false,
    admins: [`discord:${ADA.userId}`, `discord:${BEA.userId}`, `discord:${CY.userId}`],
    emulator: { demoPassword: PASSWORD },
    approvalPolicy: 'pay.send > 1000 sats',
    // cy opens the setup channel: a channel open counts against limits, and cy's own is larger.
    spendLimits: `admin = 20k sats; discord:${CY.userId} = 10M sats`,
    now: () => Date.now() + ahead,
  });
  app = h.fake.applicationId;
  const prompt = await interact(
    commandInteraction(app, CY, 'channel', 'open', { node: 'alice', peer_pubkey_and_opt_addr: 'bob', capacity_sat: 1_000_000 }),
  );
  const open = await interact(buttonInteraction(app, CY, buttonId(prompt, 'Confirm')));
  expect(textOf(open.data)).toContain('Channel opening');
  h.emulator.world.mine(6);
}, 90_000);

afterAll(async () => {
  await h?.close();
});

/** Posts a signed interaction; for a deferral, waits for the edit that completes it. */
async function interact(d: { token: string }): Promise<Answer> {
  const from = h.fake.calls.length ? h.fake.calls[h.fake.calls.length - 1].seq : 0;
  const raw = JSON.stringify(d);
  const res = await fetch(`${h.url}/discord/interactions`, { method: 'POST', headers: h.signer.headers(raw), body: raw });
  expect(res.status).toBe(200);
  const json = await res.json();
  return finishAnswer(h.fake, d.token, json, { seq: from, method: 'POST', path: '(http response)', body: json });
}
const buttonId = (a: Answer, label: string) => {
  const b = buttonsOf(a.data).find((x) => x.label === label);
  if (!b) throw new Error(`no ${label} button in ${textOf(a.data)}`);
  return b.custom_id;
};
const payments = () => h.emulator.requests.filter((q) => q.method === 'POST' && q.path.endsWith('/sendpayment')).length;

async function requestPayment(sats: number): Promise<Answer> {
  const inv = await interact(commandInteraction(app, ADA, 'invoice', 'ln', { node: 'bob', amt_msat: sats * 1000 }));
  const invoice = /(lnbcrt[0-9a-z]+)/.exec(textOf(inv.data))![1];
  const prompt = await interact(commandInteraction(app, ADA, 'pay', 'send', { node: 'alice', invoice }));
  // Over the day's limit it is refused before any confirmation: that refusal is the answer.
  if (!buttonsOf(prompt.data).some((b) => b.label === 'Confirm')) return prompt;
  return interact(buttonInteraction(app, ADA, buttonId(prompt, 'Confirm')));
}

describe('approvals and spend limits on Discord', () => {
  it('does not pay above the threshold until a second admin approves, and refuses the requester’s own approval', async () => {
    const before = payments();
    const request = await requestPayment(5000);
    expect(request.type).toBe(7);
    expect(textOf(request.data)).toContain('Approval needed: pay send alice');
    expect(textOf(request.data)).toContain('5,000 sats');
    expect(payments()).toBe(before);

    const own = await interact(buttonInteraction(app, ADA, buttonId(request, 'Approve')));
    expect(own.ephemeral).toBe(true);
    expect(textOf(own.data)).toContain('someone else must approve it');
    expect(payments()).toBe(before);

    const approved = await interact(buttonInteraction(app, BEA, buttonId(request, 'Approve')));
    expect(approved.type).toBe(7);
    expect(textOf(approved.data)).toContain('Payment sent');
    expect(textOf(approved.data)).toContain(`approved by user0012 (discord:${BEA.userId})`);
    expect(payments()).toBe(before + 1);
  });

  it('pays once when two admins click Approve together', async () => {
    const before = payments();
    const request = await requestPayment(6000);
    const id = buttonId(request, 'Approve');
    const answers = await Promise.all([interact(buttonInteraction(app, BEA, id)), interact(buttonInteraction(app, CY, id))]);
    const texts = answers.map((a) => textOf(a.data));
    expect(texts.filter((t) => t.includes('Payment sent'))).toHaveLength(1);
    expect(texts.filter((t) => t.includes('already approved'))).toHaveLength(1);
    expect(payments()).toBe(before + 1);
  });

  it('refuses a send over the daily limit with what is left', async () => {
    const before = payments();
    const refused = await requestPayment(12_000);
    expect(refused.ephemeral).toBe(true);
    expect(textOf(refused.data)).toContain('9,000 sats left');
    expect(textOf(refused.data)).toContain('resets at 00:00 UTC');
    expect(payments()).toBe(before);
  });

  it('cannot approve a request after it expired', async () => {
    const before = payments();
    const request = await requestPayment(2000);
    ahead += 31 * 60_000;
    const late = await interact(buttonInteraction(app, BEA, buttonId(request, 'Approve')));
    expect(textOf(late.data)).toContain('expired');
    expect(payments()).toBe(before);
  });

  it('refuses a scoped operator on another node, with the reason', async () => {
    const granted = await interact(
      commandInteraction(app, ADA, 'access', 'grant', { principal: `discord:${SAM.userId}`, role: 'operator', nodes: 'alice' }),
    );
    expect(textOf(granted.data)).toContain('nodes=alice only');
    const refused = await interact(commandInteraction(app, SAM, 'node', 'stop', { node: 'bob' }));
    expect(refused.ephemeral).toBe(true);
    expect(textOf(refused.data)).toContain('limited to nodes=alice');
    expect(h.emulator.nodes().find((n) => n.name === 'bob')!.status).toBe('RUNNING');
  });
});
