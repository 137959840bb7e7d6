/**
 * End to end over the gateway: the real discord.js Client connected to the fake Discord, the real
 * registry and dispatcher, and the emulator as the hosting service.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BOT_TOKEN, startDiscordBot, type DiscordBot } from '../../support/start-discord-bot.js';
import {
  autocompleteInteraction,
  buttonInteraction,
  commandInteraction,
  modalSubmitInteraction,
  type FakeDiscord,
} from '../../fakes/discord/index.js';
import { buttonsOf, gatewayAnswer, textOf } from '../../support/discord-e2e.js';
import { TONE_COLOURS } from '../../../src/chat/discord/index.js';
import { commandProblems, messageProblems, modalInputs, modalProblems } from './check-limits.js';
import { waitFor } from '../../support/wait-for.js';

const ADMIN = { userId: '100000000000000001' };
const OPERATOR = { userId: '100000000000000002' };
const OTHER_OPERATOR = { userId: '100000000000000004', roles: ['300000000000000001'] };
const READER = { userId: '100000000000000003' };

let fake: FakeDiscord;
let h: DiscordBot;
let app: string;

beforeAll(async () => {
  h = await startDiscordBot({
    admins: [`discord:${ADMIN.userId}`],
    operators: [`discord:${OPERATOR.userId}`, `discord-role:${OTHER_OPERATOR.roles[0]}`],
  });
  fake = h.fake;
  app = fake.applicationId;
  await fake.identified();
}, 90_000);

afterAll(async () => {
  await h?.close();
});

const cmd = (who: typeof ADMIN, group: string | undefined, sub: string, options: Record<string, string> = {}) =>
  gatewayAnswer(fake, commandInteraction(app, who, group, sub, options));

describe('Discord over the gateway', () => {
  it('registers /rln and one /rln-<group> command per group within Discord limits at start-up', async () => {
    const put = await fake.waitForCall((c) => c.method === 'PUT' && c.path === `/applications/${app}/commands`);
    expect(put.authorization).toBe(`Bot ${BOT_TOKEN}`);
    const names = put.body.map((c: any) => c.name);
    expect(names).toEqual(expect.arrayContaining(['rln', 'rln-node', 'rln-wallet', 'rln-asset', 'rln-channel', 'rln-watch', 'rln-access']));
    for (const c of put.body) expect(commandProblems(c)).toEqual([]);
    const rln = put.body.find((c: any) => c.name === 'rln');
    expect(rln.options.map((o: any) => o.name)).toEqual(expect.arrayContaining(['audit', 'help']));
    const stop = put.body.find((c: any) => c.name === 'rln-node').options.find((o: any) => o.name === 'stop');
    expect(stop.options[0]).toMatchObject({ name: 'node', required: true, autocomplete: true });
  });

  it('identifies with the bot token and no intents beyond what interactions need', () => {
    const identify = fake.gatewayOps.find((o) => o.op === 2);
    expect(identify).toBeDefined();
    // The fake compared the token sent with BOT_TOKEN, and kept only the verdict.
    expect(identify!.tokenOk).toBe(true);
    expect(JSON.stringify(fake.gatewayOps)).not.toContain(BOT_TOKEN);
    // Interactions arrive without any gateway intent (src/chat/discord/gateway.ts: intents: []).
    expect(identify!.d.intents).toBe(0);
  });

  it('creates a node, lists it and shows its details', async () => {
    const created = await cmd(ADMIN, 'node', 'create', { name: 'dave' });
    expect(messageProblems(created.data)).toEqual([]);
    expect(textOf(created.data)).toContain('dave');
    expect(created.ephemeral).toBe(false);
    expect(h.emulator.nodes().map((n) => n.name)).toContain('dave');

    const list = await cmd(READER, 'node', 'list');
    expect(messageProblems(list.data)).toEqual([]);
    for (const name of ['alice', 'bob', 'carol', 'dave']) expect(textOf(list.data)).toContain(name);

    const info = await cmd(READER, 'node', 'info', { node: 'alice' });
    expect(textOf(info.data)).toMatch(/alice/);
    expect(textOf(info.data)).toMatch(/RUNNING/);
    // A RUNNING node is shown in the success tone.
    expect(info.data.embeds[0].color).toBe(TONE_COLOURS.success);
  });

  it('offers node names as autocomplete choices', async () => {
    const d = autocompleteInteraction(app, READER, 'node', 'info', 'node', 'al');
    const a = await gatewayAnswer(fake, d);
    expect(a.type).toBe(8);
    expect(a.data.choices.map((c: any) => c.value)).toContain('alice');
    expect(a.data.choices.map((c: any) => c.value)).not.toContain('bob');
  });

  it('refuses a stop by a user without the operate role, privately, naming the role', async () => {
    const a = await cmd(READER, 'node', 'stop', { node: 'bob' });
    expect(a.ephemeral).toBe(true);
    expect(textOf(a.data)).toMatch(/operate/);
    expect(h.emulator.nodes().find((n) => n.name === 'bob')!.status).toBe('RUNNING');
  });

  it('stops a node only after its requester confirms with the button; another user cannot confirm', async () => {
    const bobId = h.emulator.nodes().find((n) => n.name === 'bob')!.nodeId;
    const ask = await cmd(OPERATOR, 'node', 'stop', { node: 'bob' });
    expect(messageProblems(ask.data)).toEqual([]);
    const buttons = buttonsOf(ask.data);
    expect(buttons.length).toBeGreaterThan(0);
    const confirm = buttons.find((b) => b.style === 4) ?? buttons[0];
    expect(h.emulator.nodes().find((n) => n.name === 'bob')!.status).toBe('RUNNING');

    const intruder = await gatewayAnswer(fake, buttonInteraction(app, OTHER_OPERATOR, confirm.custom_id));
    expect(intruder.type).toBe(4);
    expect(intruder.ephemeral).toBe(true);
    expect(h.emulator.nodes().find((n) => n.name === 'bob')!.status).toBe('RUNNING');

    const ok = await gatewayAnswer(fake, buttonInteraction(app, OPERATOR, confirm.custom_id));
    expect([4, 7]).toContain(ok.type);
    expect(messageProblems(ok.data)).toEqual([]);
    expect(textOf(ok.data)).toMatch(/stop/i);
    expect(h.emulator.nodes().find((n) => n.name === 'bob')!.status).not.toBe('RUNNING');

    const again = await gatewayAnswer(fake, buttonInteraction(app, OPERATOR, confirm.custom_id));
    expect(again.type).toBe(4);
    expect(again.ephemeral).toBe(true);
    expect(textOf(again.data)).toContain('This confirmation was already used');
    // Only the one confirmed click reached the service.
    const stops = h.emulator.requests.filter((r) => r.method === 'POST' && r.path === `/api/nodes/${bobId}/stop`);
    expect(stops).toHaveLength(1);
  });

  it('destroys a node through the typed-name modal: a wrong name is refused, the right one destroys', async () => {
    const open = await cmd(ADMIN, 'node', 'destroy', { node: 'carol' });
    expect(open.type).toBe(9);
    expect(modalProblems(open.data)).toEqual([]);
    const fields = modalInputs(open.data).map((i: any) => i.custom_id);
    expect(fields).toContain('confirm_name');
    // The irreversibility warning is shown in the modal itself (a Text Display), not lost in a placeholder.
    const display = open.data.components.find((c: any) => c.type === 10);
    expect(display?.content).toMatch(/irreversible/);

    const wrong = await gatewayAnswer(
      fake,
      modalSubmitInteraction(app, ADMIN, open.data.custom_id, { confirm_name: 'karol', backup: 'no', backup_password: '' }),
    );
    expect(wrong.type).toBe(4);
    expect(wrong.ephemeral).toBe(true);
    const refusal = textOf(wrong.data);
    expect(refusal).toContain('Not done: the form was refused');
    expect(refusal).toContain("That is not the node's name. Type carol exactly");
    expect(h.emulator.nodes().map((n) => n.name)).toContain('carol');
    expect(h.emulator.requests.filter((r) => r.method === 'DELETE' && r.path.startsWith('/api/nodes'))).toEqual([]);

    const reopen = await cmd(ADMIN, 'node', 'destroy', { node: 'carol' });
    expect(reopen.type).toBe(9);
    const right = await gatewayAnswer(
      fake,
      modalSubmitInteraction(app, ADMIN, reopen.data.custom_id, { confirm_name: 'carol', backup: 'no', backup_password: '' }),
    );
    expect(messageProblems(right.data)).toEqual([]);
    expect(textOf(right.data)).toMatch(/carol/);
    // DESTROING first, then DESTROYED and gone, as the service's description shows.
    await waitFor(() => !h.emulator.nodes().some((n) => n.name === 'carol'), { timeout: 2_000, what: 'carol gone' });
  });

  it('refuses a password typed as a command option and never echoes it', async () => {
    const secret = 'hunter2-very-secret';
    const before = fake.calls.length;
    const a = await cmd(ADMIN, 'node', 'unlock', { node: 'alice', password: secret });
    expect(a.ephemeral).toBe(true);
    expect(textOf(a.data)).toMatch(/password/i);
    const sent = JSON.stringify(fake.calls.slice(before));
    expect(sent).not.toContain(secret);

    // alice has no wallet yet here: refused before any modal asks for a password (issue 12, §1).
    const refused = await cmd(ADMIN, 'node', 'unlock', { node: 'alice' });
    expect(refused.type).toBe(4);
    expect(refused.ephemeral).toBe(true);
    expect(textOf(refused.data)).toContain('alice is not initialized yet: there is no wallet to unlock.');
  });

  it('initialises a node through a private modal and shows the mnemonic only to the admin', async () => {
    await cmd(ADMIN, 'node', 'create', { name: 'erin' });
    await waitFor(() => h.emulator.nodes().find((n) => n.name === 'erin')?.status === 'RUNNING', { what: 'erin RUNNING' });
    const password = 'erin-password-42';
    const open = await cmd(ADMIN, 'node', 'init', { node: 'erin' });
    expect(open.type).toBe(9);
    expect(modalProblems(open.data)).toEqual([]);
    const before = fake.calls.length;
    const done = await gatewayAnswer(
      fake,
      modalSubmitInteraction(app, ADMIN, open.data.custom_id, { password, password_repeat: password }),
    );
    expect(done.ephemeral).toBe(true);
    const mnemonic = done.data.embeds[0].description.match(/```\n([a-z ]+)\n```/)?.[1] ?? '';
    expect(mnemonic.split(' ').length).toBeGreaterThanOrEqual(12);
    const sent = fake.calls.slice(before);
    expect(JSON.stringify(sent)).not.toContain(password);
    // The words went out once, in the private answer only.
    expect(sent.filter((c) => JSON.stringify(c.body ?? '').includes(mnemonic))).toHaveLength(1);
  });

  it('shows the audit trail of changes and refusals', async () => {
    const a = await cmd(ADMIN, undefined, 'audit');
    expect(messageProblems(a.data)).toEqual([]);
    const text = textOf(a.data);
    expect(text).toMatch(/node stop/);
    expect(text).toMatch(/node destroy/);
    expect(text).toMatch(/node create/);
  });

  it('defers with deferReply when the service is slow, then edits the reply', async () => {
    h.emulator.faults.latencyMs = 300;
    h.deferAfter.ms = 100;
    try {
      const d = commandInteraction(app, READER, 'node', 'info', { node: 'alice' });
      const a = await gatewayAnswer(fake, d);
      expect(a.type).toBe(5);
      expect(a.later[0].method).toBe('PATCH');
      expect(a.later[0].path).toBe(`/webhooks/${app}/${d.token}/messages/@original`);
      expect(a.later[0].seq).toBeGreaterThan(a.callback.seq);
      expect(textOf(a.data)).toMatch(/alice/);
      expect(messageProblems(a.data)).toEqual([]);
    } finally {
      h.emulator.faults.latencyMs = 0;
      h.deferAfter.ms = 2_500;
    }
  });

  it('answers /rln node help with the node commands, and /rln help with the groups', async () => {
    const a = await cmd(READER, 'node', 'help');
    expect(messageProblems(a.data)).toEqual([]);
    expect(textOf(a.data)).toMatch(/destroy/);
    const all = await cmd(READER, undefined, 'help');
    expect(messageProblems(all.data)).toEqual([]);
    expect(textOf(all.data)).toMatch(/wallet/);
  });
});

describe('Discord gateway start-up', () => {
  it('fails with a clear error, without the token, when Discord refuses the token', async () => {
    const { createDiscordAdapter } = await import('../../../src/chat/discord/index.js');
    const { loadConfig } = await import('../../../src/config.js');
    const { silentLogger } = await import('../../../src/log.js');
    const refusing = await (await import('../../fakes/discord/index.js')).startFakeDiscord();
    refusing.fail({ path: /^\/gateway\/bot$/, status: 401, body: { message: '401: Unauthorized', code: 0 }, times: 5 });
    const token = 'refused-token-0123456789abcdef';
    const config = loadConfig({ DISCORD_TOKEN: token, DISCORD_APPLICATION_ID: refusing.applicationId, DISCORD_API_URL: refusing.apiUrl });
    const adapter = createDiscordAdapter({
      config,
      dispatcher: h.dispatcher,
      registry: h.registry,
      logger: silentLogger,
      registerOnStart: false,
    });
    const err = await adapter.start().then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(err).toBeInstanceOf(Error);
    expect(err!.message).toMatch(/DISCORD_TOKEN/);
    expect(err!.message).not.toContain(token);
    await adapter.stop();
    await refusing.close();
  });
});
