/**
 * Files for someone who asked from the App Home (a report scheduled or run there, whose place is
 * the user, not a channel) go to their direct message with the bot, opened with
 * conversations.open: files.completeUploadExternal gets the `D…` id, never the `U…` one, and the
 * bot never tries to join a user or a direct message (the real Slack poster against the fake).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSlackPoster } from '../../../src/chat/slack/index.js';
import { silentLogger } from '../../../src/log.js';
import type { ChatPoster } from '../../../src/vocabulary/index.js';
import { startFakeSlack, type FakeSlack } from '../../fakes/slack/index.js';

const png = Buffer.from('89504e470d0a1a0a', 'hex').toString('base64');
const file = { name: 'balance-alice-7d.png', mime: 'image/png', base64: png, title: 'Balances of alice', alt: 'a chart' };

describe('files for a user who asked from the App Home', () => {
  let fake: FakeSlack;
  let poster: ChatPoster;
  beforeAll(async () => {
    fake = await startFakeSlack();
    poster = createSlackPoster({ token: 'xoxb-app-home-files', slackApiUrl: fake.apiUrl, logger: silentLogger });
  });
  afterAll(async () => fake?.close());

  it('go to the direct message conversations.open gives, with the report text', async () => {
    await poster.post({ channelId: 'UBEA' }, { blocks: [{ type: 'text', text: 'Balance report of alice' }], files: [file] });
    expect(fake.callsTo('conversations.open').map((c) => c.args.users)).toEqual(['UBEA']);
    const [upload] = await fake.waitForUploads(1);
    expect(upload).toMatchObject({ filename: 'balance-alice-7d.png', channelId: 'DBEA', completed: true });
    expect(fake.callsTo('files.completeUploadExternal').map((c) => c.args.channel_id)).toEqual(['DBEA']);
    expect(fake.callsTo('conversations.join')).toHaveLength(0);
  });

  it('go there alone too (a file after an answer), and a channel is still a channel', async () => {
    await poster.post({ channelId: 'UBEA' }, { blocks: [], files: [file] });
    expect(fake.callsTo('files.completeUploadExternal').at(-1)!.args.channel_id).toBe('DBEA');
    await poster.post({ channelId: 'CREP' }, { blocks: [], files: [file] });
    expect(fake.callsTo('files.completeUploadExternal').at(-1)!.args.channel_id).toBe('CREP');
    expect(fake.callsTo('conversations.open')).toHaveLength(2);
    expect(fake.callsTo('conversations.join')).toHaveLength(0);
  });
});
