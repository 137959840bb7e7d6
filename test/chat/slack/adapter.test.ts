/**
 * The Slack adapter with the real Bolt app against the fake Slack, in Socket Mode and in
 * HTTP mode (through the bot's fastify server), around a scripted dispatcher: what is acked
 * when, what the dispatcher is given, and where each kind of Reply goes.
 */
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/log.js';
import type { Invocation, Reply } from '../../../src/engine/types.js';
import { msg, type Message } from '../../../src/vocabulary/message.js';
import { postSigned, slashCommandPayload } from '../../fakes/slack/index.js';
import { scriptedDispatcher, gate } from './scripted-dispatcher.js';
import { startSlackBot, SIGNING_SECRET, type SlackBot } from './start-slack-bot.js';
import { waitFor } from '../../support/wait-for.js';

const ALICE = { id: 'UALICE', name: 'alice' };
const BOB = { id: 'UBOB', name: 'bob' };

const channelReply = (text: string, extra: Partial<Message> = {}): Reply => ({
  kind: 'message',
  visibility: 'channel',
  message: { header: 'Answer', blocks: [msg.text(text)], ...extra },
});

/** A bare ack: no HTTP body, or `{}` as the socket-mode client sends it. */
const isEmptyAck = (a: unknown) => a === undefined || a === '' || (typeof a === 'object' && a !== null && Object.keys(a).length === 0);

let bot: SlackBot | undefined;
afterEach(async () => {
  await bot?.close();
  bot = undefined;
});

describe.each(['socket', 'http'] as const)('the Slack adapter in %s mode', (mode) => {
  it('acks a slash command, dispatches it with who and where, and answers in the channel through response_url', async () => {
    const d = scriptedDispatcher(() => channelReply('3 nodes'));
    bot = await startSlackBot(mode, d);
    const { responseUrl } = await bot.driver.slash(ALICE, 'node list');
    const [r] = await bot.fake.waitForResponds(responseUrl);
    expect(r.body.response_type).toBe('in_channel');
    expect(JSON.stringify(r.body.blocks)).toContain('3 nodes');
    expect(d.invocations).toEqual([
      {
        via: 'typed',
        actor: { platform: 'slack', userId: 'UALICE', displayName: 'alice', groups: [] },
        place: { platform: 'slack', channelId: 'C0OPS', workspaceId: 'T0TEST' },
        text: 'node list',
      },
    ]);
  });

  it('acks before a slow dispatcher answers, and the answer comes after the ack', async () => {
    const slow = gate<Reply>();
    const d = scriptedDispatcher(() => slow.promise);
    bot = await startSlackBot(mode, d);
    const { responseUrl } = await bot.driver.slash(ALICE, 'node info alice');
    // Acknowledged while the dispatcher has not answered yet.
    expect(bot.fake.respondsTo(responseUrl)).toHaveLength(0);
    await waitFor(() => d.invocations.length === 1, { timeout: 5000, what: 'the dispatch' });
    slow.open(channelReply('alice is RUNNING'));
    const [r] = await bot.fake.waitForResponds(responseUrl);
    const ackKind = mode === 'socket' ? 'ack' : 'http_ack';
    const ack = bot.fake.timeline.find((e) => e.kind === ackKind)!;
    expect(ack).toBeDefined();
    expect(ack.seq).toBeLessThan(r.seq);
  });

  it('answers a private reply ephemerally', async () => {
    bot = await startSlackBot(
      mode,
      scriptedDispatcher(() => ({ kind: 'message', visibility: 'private', message: { blocks: [msg.text('only you')] } })),
    );
    const { responseUrl } = await bot.driver.slash(BOB, 'node create x');
    const [r] = await bot.fake.waitForResponds(responseUrl);
    expect(r.body.response_type).toBe('ephemeral');
  });

  it('opens a dialog with the trigger id, refuses a wrong value in place, and posts the result of a right one to the channel', async () => {
    const d = scriptedDispatcher((inv: Invocation): Reply => {
      if (inv.via === 'typed') {
        return {
          kind: 'dialog',
          dialog: {
            id: 'dlg-7',
            title: 'Destroy alice',
            submitLabel: 'Destroy',
            fields: [{ name: 'confirm', label: 'Type the node name', kind: 'text', required: true }],
          },
        };
      }
      if (inv.via === 'dialog' && inv.values.confirm !== 'alice')
        return { kind: 'dialog_errors', errors: { confirm: 'That is not the node name.' } };
      return channelReply('alice destroyed');
    });
    bot = await startSlackBot(mode, d);
    await bot.driver.slash(ALICE, 'node destroy alice', { channelId: 'C0DANGER' });
    const [open] = await bot.fake.waitForCalls('views.open');
    expect(open.args.trigger_id).toMatch(/^trigger-/);
    expect(open.args.view.callback_id).toBe('dlg-7');
    const view = bot.fake.views.at(-1)!;

    const wrong = await bot.driver.submit(ALICE, view, { confirm: 'alicia' });
    expect(wrong.ack).toEqual({ response_action: 'errors', errors: { confirm: 'That is not the node name.' } });
    expect(bot.fake.callsTo('chat.postMessage')).toHaveLength(0);

    const right = await bot.driver.submit(ALICE, view, { confirm: 'alice' });
    expect(isEmptyAck(right.ack)).toBe(true);
    const [post] = await bot.fake.waitForCalls('chat.postMessage');
    expect(post.args.channel).toBe('C0DANGER');
    expect(JSON.stringify(post.args.blocks)).toContain('alice destroyed');
    expect(d.invocations[2]).toMatchObject({
      via: 'dialog',
      dialogId: 'dlg-7',
      values: { confirm: 'alice' },
      place: { channelId: 'C0DANGER' },
    });
  });

  it('acks a slow dialog submission in time and then tells the user privately', async () => {
    const slow = gate<Reply>();
    const d = scriptedDispatcher((inv) =>
      inv.via === 'dialog'
        ? slow.promise
        : {
            kind: 'dialog',
            dialog: {
              id: 'dlg-s',
              title: 'Unlock',
              submitLabel: 'Unlock',
              fields: [{ name: 'password', label: 'Password', kind: 'secret' }],
            },
          },
    );
    const logs: string[] = [];
    const logger = createLogger({ level: 'debug', destination: new Writable({ write: (c, _e, cb) => (logs.push(String(c)), cb()) }) });
    bot = await startSlackBot(mode, d, { viewSubmissionBudgetMs: 30, logger });
    await bot.driver.slash(ALICE, 'node unlock alice');
    const view = await waitFor(() => bot!.fake.views.at(-1));
    const { ack } = await bot.driver.submit(ALICE, view, { password: 'correct horse battery' });
    expect(isEmptyAck(ack)).toBe(true);
    slow.open({ kind: 'message', visibility: 'private', message: { blocks: [msg.text('unlocked')] } });
    const [eph] = await bot.fake.waitForCalls('chat.postEphemeral');
    expect(eph.args).toMatchObject({ channel: 'C0OPS', user: 'UALICE' });
    expect(JSON.stringify(bot.fake.calls)).not.toContain('correct horse battery');
    // Bolt and the socket-mode client log payloads at debug level: scrubbed.
    expect(logs.length).toBeGreaterThan(0);
    expect(logs.join('')).not.toContain('correct horse battery');
  });

  it('dispatches a click with the button id and replaces the original message when asked', async () => {
    const d = scriptedDispatcher(() => ({ ...channelReply('stopped'), replaceOriginal: true }) as Reply);
    bot = await startSlackBot(mode, d);
    const { responseUrl } = await bot.driver.click(BOB, 'cf-123', { channelId: 'C0OPS' });
    const [r] = await bot.fake.waitForResponds(responseUrl);
    expect(r.body.replace_original).toBe(true);
    expect(d.invocations[0]).toMatchObject({ via: 'button', buttonId: 'cf-123', actor: { userId: 'UBOB' }, place: { channelId: 'C0OPS' } });
  });

  it('serves node names to an external select', async () => {
    bot = await startSlackBot(
      mode,
      scriptedDispatcher(() => channelReply('x')),
    );
    const { ack } = await bot.driver.suggest(ALICE, 'node', 'al');
    expect(ack.options.map((o: { value: string }) => o.value)).toEqual(['alice', 'albert']);
    expect(ack.options[0].text.text).toBe('alice (RUNNING)');
  });

  it('answers an external select in time, with no names, when the look-up is slow', async () => {
    const never = gate<Array<{ name: string; nodeId: string; status: string }>>();
    bot = await startSlackBot(
      mode,
      scriptedDispatcher(() => channelReply('x')),
      { nodeNames: () => never.promise, suggestionBudgetMs: 30 },
    );
    const { ack } = await bot.driver.suggest(ALICE, 'node', 'al');
    expect(ack).toEqual({ options: [] });
  });

  it('does not offer a node name longer than an option value may be', async () => {
    const long = 'n'.repeat(151);
    bot = await startSlackBot(
      mode,
      scriptedDispatcher(() => channelReply('x')),
      {
        nodeNames: async () => [
          { name: long, nodeId: 'n-9', status: 'RUNNING' },
          { name: 'alice', nodeId: 'n-1', status: 'RUNNING' },
        ],
      },
    );
    const { ack } = await bot.driver.suggest(ALICE, 'node', 'n');
    expect(ack.options.map((o: { value: string }) => o.value)).toEqual(['alice']);
  });

  it('acks a submission whose next dialog Slack cannot show, and tells the user privately', async () => {
    const d = scriptedDispatcher(
      (inv): Reply =>
        inv.via === 'typed'
          ? {
              kind: 'dialog',
              dialog: { id: 'dlg-1', title: 'Step 1', submitLabel: 'Next', fields: [{ name: 'a', label: 'A', kind: 'text' }] },
            }
          : {
              kind: 'dialog',
              dialog: { id: 'x'.repeat(300), title: 'Step 2', submitLabel: 'Done', fields: [{ name: 'b', label: 'B', kind: 'text' }] },
            },
    );
    bot = await startSlackBot(mode, d);
    await bot.driver.slash(ALICE, 'node restore alice');
    const view = await waitFor(() => bot!.fake.views.at(-1));
    const { ack } = await bot.driver.submit(ALICE, view, { a: 'x' });
    expect(isEmptyAck(ack)).toBe(true);
    const [eph] = await bot.fake.waitForCalls('chat.postEphemeral');
    expect(eph.args).toMatchObject({ channel: 'C0OPS', user: 'UALICE' });
    expect(JSON.stringify(eph.args)).toContain('cannot show');
  });
});

describe('the Slack adapter in HTTP mode', () => {
  it('refuses a forged, tampered or stale request with 401 and dispatches nothing', async () => {
    const d = scriptedDispatcher(() => channelReply('x'));
    bot = await startSlackBot('http', d);
    const form = slashCommandPayload({ user: ALICE, text: 'node list', responseUrl: bot.fake.responseUrl() });
    const forged = await postSigned(bot.eventsUrl!, SIGNING_SECRET, form, { secret: 'not-the-secret' });
    const tampered = await postSigned(bot.eventsUrl!, SIGNING_SECRET, form, { tamper: (raw) => raw.replace('node+list', 'node+destroy') });
    const stale = await postSigned(bot.eventsUrl!, SIGNING_SECRET, form, { timestampSec: Math.floor(Date.now() / 1000) - 6 * 60 });
    expect([forged.status, tampered.status, stale.status]).toEqual([401, 401, 401]);
    expect(d.invocations).toHaveLength(0);
    const ok = await postSigned(bot.eventsUrl!, SIGNING_SECRET, form);
    expect(ok.status).toBe(200);
    await waitFor(() => d.invocations.length === 1);
  });

  it('refuses the same signed request a second time, so a captured click or command cannot run twice', async () => {
    const d = scriptedDispatcher(() => channelReply('x'));
    bot = await startSlackBot('http', d);
    const form = slashCommandPayload({ user: ALICE, text: 'node stop alice', responseUrl: bot.fake.responseUrl() });
    const timestampSec = Math.floor(Date.now() / 1000);
    const first = await postSigned(bot.eventsUrl!, SIGNING_SECRET, form, { timestampSec });
    expect(first.status).toBe(200);
    await waitFor(() => d.invocations.length === 1);
    const replay = await postSigned(bot.eventsUrl!, SIGNING_SECRET, form, { timestampSec });
    expect(replay.status).toBe(401);
    // A new request (Slack signs each one afresh) still goes through.
    const next = await postSigned(bot.eventsUrl!, SIGNING_SECRET, { ...form, trigger_id: 'trigger-next' }, { timestampSec });
    expect(next.status).toBe(200);
    await waitFor(() => d.invocations.length === 2);
    expect(d.invocations).toHaveLength(2);
  });

  it('answers the URL verification challenge', async () => {
    bot = await startSlackBot(
      'http',
      scriptedDispatcher(() => channelReply('x')),
    );
    const raw = JSON.stringify({ type: 'url_verification', challenge: 'abc123', token: 't' });
    const { signSlackRequest } = await import('../../fakes/slack/index.js');
    const res = await fetch(bot.eventsUrl!, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...signSlackRequest(SIGNING_SECRET, raw) },
      body: raw,
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ challenge: 'abc123' });
  });
});

describe('the Slack adapter answering a dialog', () => {
  it('sends the answer as a direct message when it cannot post in the channel', async () => {
    const d = scriptedDispatcher(
      (inv): Reply =>
        inv.via === 'typed'
          ? { kind: 'dialog', dialog: { id: 'dlg-dm', title: 'T', submitLabel: 'Go', fields: [{ name: 'x', label: 'X', kind: 'text' }] } }
          : channelReply('done'),
    );
    bot = await startSlackBot('socket', d);
    await bot.driver.slash(ALICE, 'node settings alice', { channelId: 'C0PRIVATE' });
    const view = await waitFor(() => bot!.fake.views.at(-1));
    bot.fake.fail('chat.postMessage', { error: 'not_in_channel' });
    await bot.driver.submit(ALICE, view, { x: '1' });
    const posts = await bot.fake.waitForCalls('chat.postMessage', 2);
    expect(posts.map((p) => p.args.channel)).toEqual(['C0PRIVATE', 'UALICE']);
  });
});

describe('the Slack adapter in Socket Mode', () => {
  it('reconnects through a fresh apps.connections.open when Slack asks it to, and keeps answering', async () => {
    const d = scriptedDispatcher(() => channelReply('still here'));
    // The client waits one ping timeout before reconnecting: keep it short here.
    bot = await startSlackBot('socket', d, { socketPingTimeoutMs: 200 });
    const opens = bot.fake.callsTo('apps.connections.open').length;
    bot.fake.disconnectClients();
    await bot.fake.waitForCalls('apps.connections.open', opens + 1);
    await waitFor(() => bot!.fake.connectionCount === 2, { timeout: 5000, what: 'a second connection' });
    await bot.fake.connected();
    const { responseUrl } = await bot.driver.slash(ALICE, 'node list');
    const [r] = await bot.fake.waitForResponds(responseUrl);
    expect(JSON.stringify(r.body)).toContain('still here');
  });
});

describe('the Slack adapter in HTTP mode, for events it does not handle', () => {
  it('acknowledges them with 200 so Slack does not retry', async () => {
    bot = await startSlackBot(
      'http',
      scriptedDispatcher(() => channelReply('x')),
    );
    const { signSlackRequest } = await import('../../fakes/slack/index.js');
    const raw = JSON.stringify({
      type: 'event_callback',
      team_id: 'T0TEST',
      api_app_id: 'AFAKE',
      event: { type: 'app_mention', user: 'U1', text: 'hi', ts: '1.1', channel: 'C1', event_ts: '1.1' },
      event_id: 'Ev1',
      event_time: 1,
    });
    const res = await fetch(bot.eventsUrl!, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...signSlackRequest(SIGNING_SECRET, raw) },
      body: raw,
    });
    expect(res.status).toBe(200);
  });
});

describe('starting the Slack adapter', () => {
  it('fails with a clear reason when Slack refuses the bot token', async () => {
    const { startFakeSlack } = await import('../../fakes/slack/index.js');
    const { loadConfig } = await import('../../../src/config.js');
    const { createSlackAdapter } = await import('../../../src/chat/slack/index.js');
    const { silentLogger } = await import('../../../src/log.js');
    const fake = await startFakeSlack();
    try {
      fake.fail('auth.test', { error: 'invalid_auth' });
      const config = loadConfig({ SLACK_BOT_TOKEN: 'xoxb-wrong', SLACK_SIGNING_SECRET: SIGNING_SECRET, SLACK_API_URL: fake.apiUrl });
      const adapter = createSlackAdapter({ config, dispatcher: scriptedDispatcher(() => channelReply('x')), logger: silentLogger });
      await expect(adapter.start()).rejects.toThrow(/SLACK_BOT_TOKEN.*invalid_auth/);
    } finally {
      await fake.close();
    }
  });

  it('fails with a clear reason when Socket Mode cannot connect', async () => {
    const { startFakeSlack } = await import('../../fakes/slack/index.js');
    const { loadConfig } = await import('../../../src/config.js');
    const { createSlackAdapter } = await import('../../../src/chat/slack/index.js');
    const { silentLogger } = await import('../../../src/log.js');
    const fake = await startFakeSlack();
    try {
      fake.fail('apps.connections.open', { error: 'invalid_auth' });
      const config = loadConfig({ SLACK_BOT_TOKEN: 'xoxb-ok', SLACK_APP_TOKEN: 'xapp-wrong', SLACK_API_URL: fake.apiUrl });
      const adapter = createSlackAdapter({ config, dispatcher: scriptedDispatcher(() => channelReply('x')), logger: silentLogger });
      await expect(adapter.start()).rejects.toThrow(/Socket Mode could not connect.*invalid_auth.*SLACK_APP_TOKEN/);
      await adapter.stop().catch(() => undefined);
    } finally {
      await fake.close();
    }
  });
});

describe('the Slack adapter resolving user groups', () => {
  it('gives the dispatcher the user’s Slack user groups, from one cached usergroups.list', async () => {
    const d = scriptedDispatcher(() => channelReply('ok'));
    bot = await startSlackBot('http', d);
    bot.fake.userGroups.push({ id: 'SOPS', users: ['UALICE', 'UCAROL'] }, { id: 'SDEV', users: ['UALICE'] });
    const one = await bot.driver.slash(ALICE, 'node list');
    await bot.fake.waitForResponds(one.responseUrl);
    const two = await bot.driver.slash(BOB, 'node list');
    await bot.fake.waitForResponds(two.responseUrl);
    expect(d.invocations.map((i) => i.actor.groups)).toEqual([['SOPS', 'SDEV'], []]);
    expect(bot.fake.callsTo('usergroups.list')).toHaveLength(1);
  });

  it('goes on without groups when the app may not read them', async () => {
    const d = scriptedDispatcher(() => channelReply('ok'));
    bot = await startSlackBot('socket', d);
    bot.fake.fail('usergroups.list', { error: 'missing_scope' });
    for (const user of [ALICE, BOB]) {
      const { responseUrl } = await bot.driver.slash(user, 'node list');
      await bot.fake.waitForResponds(responseUrl);
    }
    expect(d.invocations.map((i) => i.actor.groups)).toEqual([[], []]);
    expect(bot.fake.callsTo('usergroups.list')).toHaveLength(1);
  });
});

describe('the Slack adapter when response_url has expired', () => {
  it('answers through the Web API instead', async () => {
    const slow = gate<Reply>();
    bot = await startSlackBot(
      'http',
      scriptedDispatcher(() => slow.promise),
    );
    const { responseUrl } = await bot.driver.slash(ALICE, 'node logs alice', { channelId: 'C0LOGS' });
    bot.fake.expireResponseUrl(responseUrl);
    slow.open(channelReply('logs are ready'));
    const [post] = await bot.fake.waitForCalls('chat.postMessage');
    expect(post.args.channel).toBe('C0LOGS');
    expect(JSON.stringify(post.args.blocks)).toContain('logs are ready');
    expect(bot.fake.respondsTo(responseUrl)).toHaveLength(0);
  });
});

describe('the Slack adapter chaining dialogs', () => {
  it('replaces the open modal when a submission asks for another dialog', async () => {
    const d = scriptedDispatcher(
      (inv): Reply =>
        inv.via === 'typed'
          ? {
              kind: 'dialog',
              dialog: { id: 'dlg-a', title: 'Step 1', submitLabel: 'Next', fields: [{ name: 'a', label: 'A', kind: 'text' }] },
            }
          : {
              kind: 'dialog',
              dialog: { id: 'dlg-b', title: 'Step 2', submitLabel: 'Done', fields: [{ name: 'b', label: 'B', kind: 'secret' }] },
            },
    );
    bot = await startSlackBot('socket', d);
    await bot.driver.slash(ALICE, 'node restore alice');
    const view = await waitFor(() => bot!.fake.views.at(-1));
    const { ack } = await bot.driver.submit(ALICE, view, { a: 'x' });
    expect(ack.response_action).toBe('update');
    expect(ack.view).toMatchObject({ type: 'modal', callback_id: 'dlg-b' });
    expect(JSON.parse(ack.view.private_metadata)).toMatchObject({ c: 'C0OPS' });
  });
});
