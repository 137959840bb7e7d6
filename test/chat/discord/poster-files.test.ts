/** The Discord poster sends a message's files as multipart attachments, as Discord reads them. */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { messageFile, type Message } from '../../../src/vocabulary/message.js';
import { createDiscordPoster, createDiscordRest } from '../../../src/chat/discord/index.js';
import { startFakeDiscord, type FakeDiscord } from '../../fakes/discord/index.js';

const CHANNEL = '800000000000000077';
let fake: FakeDiscord;
let rest: ReturnType<typeof createDiscordRest>;

beforeAll(async () => {
  fake = await startFakeDiscord();
  rest = createDiscordRest({ token: 'poster-files-token-0123456789', apiUrl: fake.apiUrl, timeoutMs: 2_000 });
});
afterAll(async () => {
  rest.clearHashSweeper();
  rest.clearHandlerSweeper();
  await fake.close();
});

it('posts a message with its files as attachments of the same message', async () => {
  const bytes = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
  const message: Message = {
    header: 'Balance report · alice',
    blocks: [{ type: 'text', text: 'on-chain 1,000 sats' }],
    files: [messageFile({ name: 'balance-alice.png', mime: 'image/png', bytes, title: 'Balance of alice', alt: 'a line chart' })],
  };
  await createDiscordPoster(rest).post({ channelId: CHANNEL }, message);
  const call = await fake.waitForCall((c) => c.method === 'POST' && c.path === `/channels/${CHANNEL}/messages`);
  expect(call.body.embeds[0].title).toContain('Balance report');
  expect(call.body.attachments).toEqual([{ id: 0, filename: 'balance-alice.png', description: 'a line chart' }]);
  expect(call.files?.map((f) => [f.name, f.contentType])).toEqual([['balance-alice.png', 'image/png']]);
  expect(call.files?.[0].bytes.equals(bytes)).toBe(true);
});
