/**
 * Components V2 cards over REST, against the fake Discord, which refuses what Discord refuses: a
 * report is posted with its chart inside the card, an incident is edited in place and stays a card.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { messageFile, msg, type Message } from '../../../src/vocabulary/index.js';
import { createDiscordPoster, createDiscordRest } from '../../../src/chat/discord/index.js';
import { startFakeDiscord, type FakeDiscord } from '../../fakes/discord/index.js';
import { componentsOf } from '../../support/discord-e2e.js';

const CHANNEL = '800000000000000078';
let fake: FakeDiscord;
let rest: ReturnType<typeof createDiscordRest>;
const TOKEN = 'poster-v2-token-0123456789';

beforeAll(async () => {
  fake = await startFakeDiscord();
  rest = createDiscordRest({ token: TOKEN, apiUrl: fake.apiUrl, timeoutMs: 2_000 });
});
afterAll(async () => {
  rest.clearHashSweeper();
  rest.clearHandlerSweeper();
  await fake.close();
});

const bytes = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

it('posts a report as one card with its chart in it, under the name the card gives it', async () => {
  const report: Message = {
    header: 'Balance report · alice',
    purpose: 'report',
    tone: 'info',
    blocks: [msg.text('on-chain 1,000 sats')],
    files: [messageFile({ name: 'balance alice.png', mime: 'image/png', bytes, title: 'Balance of alice', alt: 'a line chart' })],
  };
  const from = fake.calls.length;
  await createDiscordPoster(rest).post({ channelId: CHANNEL }, report);
  const call = await fake.waitForCall((c) => c.method === 'POST' && c.path === `/channels/${CHANNEL}/messages`, { from });
  expect(fake.rejected).toEqual([]);
  expect(call.body.flags & (1 << 15)).toBeTruthy();
  expect(call.body).not.toHaveProperty('embeds');
  expect(call.files?.map((f) => f.name)).toEqual(['balance_alice.png']);
  const gallery = componentsOf(call.body).find((c) => c.type === 12);
  expect(gallery.items[0].media.url).toBe('attachment://balance_alice.png');
});

it('edits an incident card in place as a card, and a card posted before as an embed opts in', async () => {
  const poster = createDiscordPoster(rest);
  const incident = (status: string): Message => ({
    header: `Incident #1: alice is ${status}`,
    purpose: 'incident',
    tone: 'danger',
    blocks: [msg.fields([{ label: 'Status', value: status }])],
    buttons: [{ label: 'Logs', command: 'node logs', id: 'b_logs000001' }],
  });
  const { messageId } = await poster.post({ channelId: CHANNEL }, incident('FAILED'));
  await poster.update({ channelId: CHANNEL, messageId }, incident('RUNNING'));
  const edit = await fake.waitForCall((c) => c.method === 'PATCH' && c.path === `/channels/${CHANNEL}/messages/${messageId}`);
  expect(fake.rejected).toEqual([]);
  expect(edit.body.flags & (1 << 15)).toBeTruthy();
  expect(JSON.stringify(edit.body)).toContain('RUNNING');

  // An incident posted as an embed (by an older version) becomes a card: content and embeds cleared.
  const old = await poster.post({ channelId: CHANNEL }, { header: 'Incident #2: bob is FAILED', blocks: [msg.text('old')] });
  await poster.update({ channelId: CHANNEL, messageId: old.messageId }, incident('RUNNING'));
  const optIn = await fake.waitForCall((c) => c.method === 'PATCH' && c.path === `/channels/${CHANNEL}/messages/${old.messageId}`);
  expect(optIn.body).toMatchObject({ content: null, embeds: null });
  expect(fake.rejected).toEqual([]);
});

it('the fake refuses a card Discord would refuse, and a card edited back into an embed', async () => {
  const post = (path: string, method: string, body: unknown) =>
    fetch(`${fake.apiUrl}/v10${path}`, {
      method,
      headers: { authorization: `Bot ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const card = { flags: 1 << 15, components: [{ type: 17, components: [{ type: 10, content: 'hi' }] }] };
  const withContent = await post(`/channels/${CHANNEL}/messages`, 'POST', { ...card, content: 'also text' });
  expect(withContent.status).toBe(400);
  expect(await withContent.json()).toMatchObject({ code: 50035, message: 'Invalid Form Body' });

  const ok = await post(`/channels/${CHANNEL}/messages`, 'POST', card);
  expect(ok.status).toBe(200);
  const { id } = (await ok.json()) as { id: string };
  const back = await post(`/channels/${CHANNEL}/messages/${id}`, 'PATCH', { flags: 0, embeds: [{ title: 'embed' }] });
  expect(back.status).toBe(400);
  expect(fake.rejected.map((r) => r.problems).flat()).toEqual([
    'content: not allowed with IS_COMPONENTS_V2',
    'flags: a message with IS_COMPONENTS_V2 cannot lose it',
    'embeds: not allowed with IS_COMPONENTS_V2',
  ]);
  fake.rejected.length = 0;
});
