/**
 * The Slack ChatPoster against the fake Web API: what it sends, and how each failure
 * becomes a PostError the outbox can act on (it does not retry by itself).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PostError, type ChatPoster } from '../../../src/vocabulary/chat.js';
import { msg, type Message } from '../../../src/vocabulary/message.js';
import { createSlackPoster } from '../../../src/chat/slack/index.js';
import { silentLogger } from '../../../src/log.js';
import { startFakeSlack, type FakeSlack } from '../../fakes/slack/index.js';

const message: Message = {
  header: 'alice is FAILED',
  tone: 'danger',
  blocks: [msg.text('The node stopped answering.')],
  buttons: [{ label: 'Restart', command: 'node start', id: 'inc_1' }],
};

let fake: FakeSlack;
let poster: ChatPoster;
beforeEach(async () => {
  fake = await startFakeSlack();
  poster = createSlackPoster({ token: 'xoxb-poster-token', slackApiUrl: fake.apiUrl, logger: silentLogger });
});
afterEach(async () => {
  await fake.close();
});

async function postError(p: Promise<unknown>): Promise<PostError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(PostError);
    return e as PostError;
  }
  throw new Error('expected a PostError');
}

describe('the Slack poster', () => {
  it('posts Block Kit with chat.postMessage and returns the ts as the message and thread id', async () => {
    const r = await poster.post({ channelId: 'C0OPS' }, message);
    const [call] = fake.callsTo('chat.postMessage');
    expect(call.args.channel).toBe('C0OPS');
    expect(call.args.attachments[0].blocks.at(-1).elements[0].action_id).toBe('inc_1');
    expect(call.args.text).toBe('alice is FAILED');
    expect(r.messageId).toMatch(/^\d+\.\d+$/);
    expect(r.threadId).toBe(r.messageId);
  });

  it('posts into a thread and updates a message in place', async () => {
    const r = await poster.post({ channelId: 'C0OPS', threadId: '1700000000.000100' }, message);
    expect(fake.callsTo('chat.postMessage')[0].args.thread_ts).toBe('1700000000.000100');
    await poster.update({ channelId: 'C0OPS', messageId: r.messageId }, { ...message, header: 'alice recovered', tone: 'success' });
    const [u] = fake.callsTo('chat.update');
    expect(u.args).toMatchObject({ channel: 'C0OPS', ts: r.messageId });
    expect(JSON.stringify(u.args.attachments)).toContain('alice recovered');
  });

  it('clears the colour bar when the update has none (chat.update keeps attachments left out)', async () => {
    const r = await poster.post({ channelId: 'C0OPS' }, message);
    await poster.update({ channelId: 'C0OPS', messageId: r.messageId }, { header: 'alice', blocks: [msg.text('plain now')] });
    const [u] = fake.callsTo('chat.update');
    expect(u.args.attachments).toEqual([]);
    expect(JSON.stringify(u.args.blocks)).toContain('plain now');
  });

  it('maps a 429 to rate_limited with Retry-After, without retrying by itself', async () => {
    fake.fail('chat.postMessage', { status: 429, retryAfter: 7 });
    const e = await postError(poster.post({ channelId: 'C0OPS' }, message));
    expect(e.kind).toBe('rate_limited');
    expect(e.retryAfterMs).toBe(7000);
    expect(fake.callsTo('chat.postMessage')).toHaveLength(1);
  });

  it('maps a 5xx to transient, once', async () => {
    fake.fail('chat.postMessage', { status: 503 });
    const e = await postError(poster.post({ channelId: 'C0OPS' }, message));
    expect(e.kind).toBe('transient');
    expect(fake.callsTo('chat.postMessage')).toHaveLength(1);
  });

  it.each(['channel_not_found', 'not_in_channel', 'is_archived', 'channel_is_archived', 'account_inactive'])(
    'maps %s to channel_gone',
    async (code) => {
      fake.fail('chat.update', { error: code });
      const e = await postError(poster.update({ channelId: 'C0GONE', messageId: '1.2' }, message));
      expect(e.kind).toBe('channel_gone');
      expect(e.message).toContain(code);
    },
  );

  it('maps other refusals to permanent and keeps the token out of the message', async () => {
    fake.fail('chat.postMessage', { error: 'invalid_blocks' });
    const e = await postError(poster.post({ channelId: 'C0OPS' }, message));
    expect(e.kind).toBe('permanent');
    expect(e.message).toContain('invalid_blocks');
    expect(e.message).not.toContain('xoxb-');
  });

  it('maps an unreachable Slack to transient', async () => {
    await fake.close();
    const e = await postError(poster.post({ channelId: 'C0OPS' }, message));
    expect(e.kind).toBe('transient');
    fake = await startFakeSlack();
  });

  it('refuses a message with a button that has no id as permanent', async () => {
    const e = await postError(poster.post({ channelId: 'C0OPS' }, { blocks: [], buttons: [{ label: 'x', command: 'node start' }] }));
    expect(e.kind).toBe('permanent');
    expect(fake.calls).toHaveLength(0);
  });
});
