/**
 * The whole bot (src/app/create-app.ts through the test harness: real dispatcher, commands, store and
 * the emulator as the service) driven over Slack's wire format by the fake Slack, with the
 * real Bolt app, in Socket Mode and in HTTP mode (through the bot's one fastify server).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSlackWorld, DEMO_NODE_PASSWORD, type SlackWorld } from '../../support/start-slack-world.js';
import {
  startFakeSlack,
  createSlackDriver,
  type FakeSlack,
  type SlackDriver,
  type RespondCall,
  type ApiCall,
} from '../../fakes/slack/index.js';
import { waitFor } from '../../support/wait-for.js';

const SIGNING_SECRET = 'e2e-signing-secret-abcdef';
const ADMIN = { id: 'UADMIN', name: 'ada' };
const OPERATOR = { id: 'UOPS', name: 'otto' };
const OTHER_OPERATOR = { id: 'UOPS2', name: 'olga' };
const READER = { id: 'UREAD', name: 'rita' };
/** An admin only through the Slack user group SADMINS. */
const GROUP_ADMIN = { id: 'UGRP', name: 'greta' };
const SECRET = 'hunter2-do-not-echo';

/** Everything the bot said, as one string: respond() posts and Web API calls. */
const everything = (fake: FakeSlack) => JSON.stringify([fake.responds.map((r) => r.body), fake.calls.map((c) => c.args)]);
const textOf = (r: RespondCall | { body: unknown }) => JSON.stringify(r.body);
/** Action ids of the buttons in a respond() body. */
function buttonIds(body: Record<string, any>): Array<{ id: string; label: string }> {
  const blocks = [...(body.blocks ?? []), ...(body.attachments ?? []).flatMap((a: any) => a.blocks ?? [])];
  return blocks
    .filter((b: any) => b.type === 'actions')
    .flatMap((b: any) => b.elements.map((e: any) => ({ id: e.action_id, label: e.text.text })));
}

describe.each(['socket', 'http'] as const)('the bot on Slack in %s mode', (mode) => {
  let fake: FakeSlack;
  let h: SlackWorld;
  let slack: SlackDriver;

  beforeAll(async () => {
    fake = await startFakeSlack();
    fake.userGroups.push({ id: 'SADMINS', users: [GROUP_ADMIN.id] });
    h = await startSlackWorld(mode, {
      SLACK_BOT_TOKEN: 'xoxb-e2e-bot-token',
      ...(mode === 'socket' ? { SLACK_APP_TOKEN: 'xapp-e2e-app-token' } : { SLACK_SIGNING_SECRET: SIGNING_SECRET }),
      SLACK_API_URL: fake.apiUrl,
      ADMIN_USERS: `slack:${ADMIN.id},slack-group:SADMINS`,
      OPERATOR_USERS: `slack:${OPERATOR.id},slack:${OTHER_OPERATOR.id}`,
    });
    if (mode === 'socket') await fake.connected();
    slack = createSlackDriver(fake, mode, { eventsUrl: `${h.url}/slack/events`, signingSecret: SIGNING_SECRET });
  }, 90_000);

  afterAll(async () => {
    await h?.close();
    await fake?.close();
  });

  const ask = (user: { id: string; name: string }, text: string): Promise<RespondCall> => slack.ask(user, text);

  it('lists the nodes and shows one in the channel', async () => {
    const list = await ask(READER, 'node list');
    expect(list.body.response_type).toBe('in_channel');
    expect(textOf(list)).toContain('alice');
    expect(textOf(list)).toContain('bob');
    const info = await ask(READER, 'node info alice');
    expect(info.body.response_type).toBe('in_channel');
    expect(textOf(info)).toContain('RUNNING');
  });

  it('creates a node for an admin', async () => {
    const r = await ask(ADMIN, 'node create zed');
    expect(textOf(r)).toContain('zed');
    expect(h.emulator.nodes().some((n) => n.name === 'zed')).toBe(true);
  });

  it('creates a node for an admin by Slack user group', async () => {
    const name = `g${mode}`;
    const r = await ask(GROUP_ADMIN, `node create ${name}`);
    expect(textOf(r)).toContain(name);
    expect(h.emulator.nodes().some((n) => n.name === name)).toBe(true);
  });

  it('refuses a create by a reader, saying which role is needed, and creates nothing', async () => {
    const r = await ask(READER, 'node create yara');
    expect(r.body.response_type).toBe('ephemeral');
    expect(textOf(r).toLowerCase()).toContain('admin');
    expect(h.emulator.nodes().some((n) => n.name === 'yara')).toBe(false);
  });

  it('stops a node only after its requester confirms, refusing another user’s click', async () => {
    const ask1 = await ask(OPERATOR, 'node stop alice');
    const buttons = buttonIds(ask1.body);
    expect(buttons.length).toBeGreaterThan(0);
    const confirm = buttons.find((b) => /stop|confirm/i.test(b.label)) ?? buttons[0];
    const statusOfAlice = () => h.emulator.nodes().find((n) => n.name === 'alice')!.status;
    expect(statusOfAlice()).toBe('RUNNING');

    const other = await slack.click(OTHER_OPERATOR, confirm.id);
    const [refusal] = await fake.waitForResponds(other.responseUrl);
    expect(refusal.body.replace_original).not.toBe(true);
    expect(refusal.body.response_type).toBe('ephemeral');
    expect(statusOfAlice()).toBe('RUNNING');

    const mine = await slack.click(OPERATOR, confirm.id);
    const [done] = await fake.waitForResponds(mine.responseUrl);
    expect(done.body.replace_original).toBe(true);
    expect(statusOfAlice()).not.toBe('RUNNING');
  });

  it('destroys a node through the typed-name dialog: a wrong name is refused in place, the right one destroys it', async () => {
    const nodeName = mode === 'socket' ? 'carol' : 'zed';
    const before = fake.callsTo('views.open').length;
    await slack.slash(ADMIN, `node destroy ${nodeName}`);
    const opens = await fake.waitForCalls('views.open', before + 1);
    const view = fake.views.at(-1)!;
    expect(opens.at(-1)!.args.view.callback_id).toBe(view.callback_id);
    const inputs = view.blocks.filter((b: any) => b.type === 'input').map((b: any) => b.block_id);
    expect(inputs).toContain('confirm_name');

    const wrong = await slack.submit(ADMIN, view, { confirm_name: `${nodeName}x`, backup: false });
    expect(wrong.ack.response_action).toBe('errors');
    expect(Object.keys(wrong.ack.errors)).toContain('confirm_name');
    expect(h.emulator.nodes().some((n) => n.name === nodeName)).toBe(true);

    const posted = fake.callsTo('chat.postMessage').length;
    const right = await slack.submit(ADMIN, view, { confirm_name: nodeName, backup: false });
    expect(right.ack?.response_action).toBeUndefined();
    const [post] = (await fake.waitForCalls('chat.postMessage', posted + 1)).slice(posted);
    expect(post.args.channel).toBe('C0OPS');
    await waitFor(() => !h.emulator.nodes().some((n) => n.name === nodeName), { timeout: 5000, what: `${nodeName} destroyed` });
  });

  it('refuses a password typed inline and never echoes it', async () => {
    const unlocks = () => h.emulator.requests.filter((q) => q.method === 'POST' && q.path.endsWith('/unlock'));
    const unlocksBefore = unlocks().length;
    const { ack, responseUrl } = await slack.slash(ADMIN, `node unlock alice password=${SECRET}`);
    const [r] = await fake.waitForResponds(responseUrl);
    expect(r.body.response_type).toBe('ephemeral');
    const said = textOf(r);
    expect(said).toContain('Secret refused');
    expect(said).toContain('is a secret and is never accepted in a command line');
    expect(said).toContain('a private dialog will ask for it');
    // Nothing was unlocked, and the typed value is nowhere: not in the ack, a respond(), a Web API call or a service request.
    expect(unlocks()).toHaveLength(unlocksBefore);
    expect(JSON.stringify(ack ?? null)).not.toContain(SECRET);
    expect(everything(fake)).not.toContain(SECRET);
    expect(JSON.stringify(h.emulator.requests)).not.toContain(SECRET);
  });

  it('takes a password only in the private dialog, and never shows it', async () => {
    // Locking takes the node out of payments: it is confirmed first, saying what goes offline.
    const asked = await ask(ADMIN, 'node lock bob');
    expect(textOf(asked)).toContain('Goes offline');
    const lockButton = buttonIds(asked.body).find((b) => /confirm/i.test(b.label))!;
    const [locked] = await fake.waitForResponds((await slack.click(ADMIN, lockButton.id)).responseUrl);
    expect(textOf(locked).toLowerCase()).toContain('bob is locked');
    const before = fake.callsTo('views.open').length;
    await slack.slash(ADMIN, 'node unlock bob');
    await fake.waitForCalls('views.open', before + 1);
    const view = fake.views.at(-1)!;
    const passwordBlock = view.blocks.find((b: any) => b.block_id === 'password');
    expect(passwordBlock?.element.type).toBe('plain_text_input');
    const posted = fake.callsTo('chat.postMessage').length + fake.callsTo('chat.postEphemeral').length;
    const { ack } = await slack.submit(ADMIN, view, { password: DEMO_NODE_PASSWORD });
    expect(ack?.response_action).toBeUndefined();
    await waitFor(() => fake.callsTo('chat.postMessage').length + fake.callsTo('chat.postEphemeral').length > posted, {
      timeout: 5000,
      what: 'the unlock answer',
    });
    const answer = [...fake.callsTo('chat.postMessage'), ...fake.callsTo('chat.postEphemeral')].sort((a, b) => a.seq - b.seq).at(-1)!;
    expect(JSON.stringify(answer.args).toLowerCase()).toContain('unlocked');
    // The dialog's password did reach the node (the inline refusal above counts these same requests).
    const bobId = h.emulator.nodes().find((n) => n.name === 'bob')!.nodeId;
    expect(h.emulator.requests.filter((q) => q.method === 'POST' && q.path.endsWith(`/${bobId}/unlock`))).toHaveLength(1);
    expect(everything(fake)).not.toContain(DEMO_NODE_PASSWORD);
  });

  it('initialises a fresh node through the private dialog and shows the mnemonic once, only to the admin', async () => {
    const name = `init${mode}`;
    await ask(ADMIN, `node create ${name}`);
    await waitFor(() => h.emulator.nodes().find((n) => n.name === name)?.status === 'RUNNING', { timeout: 5000, what: `${name} RUNNING` });
    const password = `init-password-${mode}-42`;

    const opened = fake.callsTo('views.open').length;
    const respondsBefore = fake.responds.length;
    const callsBefore = fake.calls.length;
    await slack.slash(ADMIN, `node init ${name}`);
    await fake.waitForCalls('views.open', opened + 1);
    const view = fake.views.at(-1)!;
    const { ack } = await slack.submit(ADMIN, view, { password, password_repeat: password });
    expect(ack?.response_action).toBeUndefined();
    await waitFor(() => h.emulator.nodes().find((n) => n.name === name)?.initialized, { timeout: 5000, what: `${name} initialized` });
    const said = (x: RespondCall | ApiCall) => JSON.stringify('body' in x ? x.body : x.args);
    const since = () => [...fake.responds.slice(respondsBefore), ...fake.calls.slice(callsBefore)];
    const answers = () => since().filter((x) => said(x).includes('Node initialized'));
    const [answer] = await waitFor(() => answers().length && answers(), { timeout: 5000, what: 'the init answer' });
    const mnemonic = said(answer).match(/```\\n([a-z ]+)\\n```/)?.[1] ?? '';
    expect(mnemonic.split(' ').length).toBeGreaterThanOrEqual(12);

    // Exactly one message carries the words, and it is private to the admin who asked.
    const carrying = since().filter((x) => said(x).includes(mnemonic));
    expect(carrying).toHaveLength(1);
    const [only] = carrying;
    if ('body' in only) expect(only.body.response_type).toBe('ephemeral');
    else expect(only).toMatchObject({ method: 'chat.postEphemeral', args: { user: ADMIN.id } });
    expect(JSON.stringify(ack ?? null)).not.toContain(mnemonic);
    expect(everything(fake)).not.toContain(password);

    // A second init is refused before any dialog opens (the state check asks the node), and shows no new words.
    const second = fake.callsTo('views.open').length;
    const refusal = await ask(ADMIN, `node init ${name}`);
    expect(textOf(refusal)).toContain(`${name} is already initialized (its wallet is locked).`);
    expect(textOf(refusal).replace(/\u200b/g, '')).toContain(`Unlock it with \`/rln node unlock ${name}\``);
    expect(refusal.body.response_type).toBe('ephemeral');
    expect(fake.callsTo('views.open')).toHaveLength(second);
    expect(since().filter((x) => said(x).includes('Node initialized'))).toHaveLength(1);
    expect(since().filter((x) => said(x).includes(mnemonic))).toHaveLength(1);
    expect(everything(fake)).not.toContain(password);

    // Nor is it in the audit trail.
    const audit = await ask(ADMIN, 'audit');
    expect(textOf(audit)).toContain('node init');
    expect(textOf(audit)).not.toContain(mnemonic);
  });

  it("shows help and a refusal's usage line in Slack's form, /rln node stop", async () => {
    const help = textOf(await ask(READER, 'node help'));
    // A table cell is raw text: Slack shows it as it is, with no entity to escape.
    expect(help).toContain('"text":"/rln node stop <node>"');
    expect(help).not.toContain('/rln-node');
    const refusal = textOf(await ask(OPERATOR, 'node logs alice lines=many'));
    expect(refusal).toContain('Usage: /rln node logs &lt;node&gt;');
    expect(refusal).not.toContain('/rln-node');
  });

  it('shows the audit trail with the changes and the refusals', async () => {
    const r = await ask(ADMIN, 'audit');
    const t = textOf(r);
    expect(t).toContain('node create');
    expect(t).toContain('node stop');
    expect(t.toLowerCase()).toMatch(/refused|forbidden|denied/);
    expect(t).not.toContain(SECRET);
  });

  it('acks a command before a slow service answers', async () => {
    h.emulator.faults.latencyMs = 3000;
    try {
      const { responseUrl } = await slack.slash(READER, 'node list');
      const ack = [...fake.timeline].reverse().find((e) => e.kind === (mode === 'socket' ? 'ack' : 'http_ack'));
      expect(ack).toBeDefined();
      const ackSeq = ack!.seq;
      expect(fake.respondsTo(responseUrl)).toHaveLength(0);
      const [r] = await waitFor(() => fake.respondsTo(responseUrl).length && fake.respondsTo(responseUrl), {
        timeout: 10_000,
        what: 'the slow answer',
      });
      expect(r.seq).toBeGreaterThan(ackSeq);
      expect(textOf(r)).toContain('bob');
    } finally {
      h.emulator.faults.latencyMs = 0;
    }
  }, 90_000);
});
