/**
 * HTTP interactions at POST /discord/interactions on the bot's fastify server: Ed25519
 * signatures, PING, commands, modals, autocomplete, and deferral when the service is slow
 * (a type 5 answer, then the edit of @original, judged by the order of events).
 */
import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  autocompleteInteraction,
  buttonInteraction,
  commandInteraction,
  modalSubmitInteraction,
  pingInteraction,
  signHeaders,
} from '../../fakes/discord/index.js';
import { startDiscordBot, type DiscordBot } from '../../support/start-discord-bot.js';
import { buttonsOf, finishAnswer, textOf } from '../../support/discord-e2e.js';
import { messageProblems, modalProblems } from './check-limits.js';

const ADMIN = { userId: '100000000000000001' };
const OPERATOR = { userId: '100000000000000002' };
const READER = { userId: '100000000000000003' };

let h: DiscordBot;
let app: string;

beforeAll(async () => {
  // No gateway: HTTP interactions only.
  h = await startDiscordBot({
    gateway: false,
    admins: [`discord:${ADMIN.userId}`],
    operators: [`discord:${OPERATOR.userId}`],
  });
  app = h.fake.applicationId;
}, 90_000);

afterAll(async () => {
  await h?.close();
});

async function post(body: unknown, headers?: Record<string, string>): Promise<{ status: number; json: any }> {
  const raw = JSON.stringify(body);
  const res = await fetch(`${h.url}/discord/interactions`, {
    method: 'POST',
    headers: headers ?? h.signer.headers(raw),
    body: raw,
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

/** Posts a signed interaction; for a deferral, waits for the edit that completes it. */
async function interact(d: { token: string }) {
  const from = h.fake.calls.length ? h.fake.calls[h.fake.calls.length - 1].seq : 0;
  const res = await post(d);
  expect(res.status).toBe(200);
  const pseudo = { seq: from, method: 'POST', path: '(http response)', body: res.json };
  return finishAnswer(h.fake, d.token, res.json, pseudo);
}

describe('Discord HTTP interactions', () => {
  it('answers a signed PING with a PONG', async () => {
    const res = await post(pingInteraction(app));
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ type: 1 });
  });

  it('refuses a bad, a foreign, a missing, a replayed and a borrowed signature with 401', async () => {
    const body = JSON.stringify(pingInteraction(app));
    const good = h.signer.headers(body);
    const tampered = { ...good, 'x-signature-ed25519': good['x-signature-ed25519'].replace(/^./, (c) => (c === 'a' ? 'b' : 'a')) };
    expect((await post(JSON.parse(body), tampered)).status).toBe(401);

    const foreign = signHeaders(generateKeyPairSync('ed25519').privateKey, body);
    expect((await post(JSON.parse(body), foreign)).status).toBe(401);

    const { 'x-signature-ed25519': _drop, ...missing } = good;
    expect((await post(JSON.parse(body), missing)).status).toBe(401);

    // A correctly signed but stale request (a replay) is refused too.
    const stale = h.signer.headers(body, { timestamp: String(Math.floor(Date.now() / 1000) - 600) });
    expect((await post(JSON.parse(body), stale)).status).toBe(401);

    // The signature of another body does not carry over.
    const other = h.signer.headers(JSON.stringify(pingInteraction(app)));
    expect((await post(JSON.parse(body), other)).status).toBe(401);
  });

  it('refuses the same signed interaction a second time (a replay inside the accepted window)', async () => {
    const body = JSON.stringify(commandInteraction(app, READER, 'node', 'list'));
    const headers = h.signer.headers(body);
    const first = await post(JSON.parse(body), headers);
    expect(first.status).toBe(200);
    expect(first.json.type).toBe(4);
    const again = await post(JSON.parse(body), headers);
    expect(again.status).toBe(401);
    expect(again.json).toEqual({ error: 'invalid request signature' });
    // Upper-case hex is the same signature, not a new one.
    const upper = await post(JSON.parse(body), { ...headers, 'x-signature-ed25519': headers['x-signature-ed25519'].toUpperCase() });
    expect(upper.status).toBe(401);
  });

  it('answers a command with a message (type 4) carrying an embed', async () => {
    const a = await interact(commandInteraction(app, READER, 'node', 'list'));
    expect(a.type).toBe(4);
    expect(messageProblems(a.data)).toEqual([]);
    expect(textOf(a.data)).toContain('alice');
  });

  it('offers node names to autocomplete (type 8)', async () => {
    const a = await interact(autocompleteInteraction(app, READER, 'node', 'info', 'node', 'bo'));
    expect(a.type).toBe(8);
    expect(a.data.choices.map((c: any) => c.value)).toEqual(['bob']);
  });

  it("shows help in Discord's own command form: /rln-node stop with option names, never Slack's /rln node stop", async () => {
    const group = textOf((await interact(commandInteraction(app, READER, 'node', 'help'))).data);
    expect(group).toContain('/rln-node stop node:<node>');
    expect(group).toContain('/rln-node stop node:alice');
    expect(group).not.toContain('/rln node stop');
    const one = textOf((await interact(commandInteraction(app, READER, undefined, 'help', { group: 'node', action: 'logs' }))).data);
    expect(one).toContain('/rln-node logs node:<node>');
    expect(one).toContain('[lines:…]');
    expect(one).toContain('Example: /rln-node logs node:alice lines:100');
    const top = textOf((await interact(commandInteraction(app, READER, undefined, 'help'))).data);
    expect(top).toContain('/rln-node help');
    expect(top).not.toContain('/rln node help');
  });

  it("writes a refusal's usage line in Discord's command form", async () => {
    const a = await interact(commandInteraction(app, OPERATOR, 'node', 'logs', { node: 'alice', lines: 'many' }));
    const t = textOf(a.data);
    expect(t).toMatch(/lines/);
    expect(t).toContain('Usage: /rln-node logs node:<node>');
    expect(t).not.toContain('/rln node logs');
  });

  it('refuses a stop by a reader privately (type 4, ephemeral)', async () => {
    const a = await interact(commandInteraction(app, READER, 'node', 'stop', { node: 'alice' }));
    expect(a.type).toBe(4);
    expect(a.ephemeral).toBe(true);
    expect(textOf(a.data)).toMatch(/operate/);
  });

  it('confirms a stop with the button: another user is refused, the requester updates the message (type 7)', async () => {
    const ask = await interact(commandInteraction(app, OPERATOR, 'node', 'stop', { node: 'alice' }));
    const confirm = buttonsOf(ask.data).find((b) => b.style === 4)!;
    expect(confirm).toBeDefined();
    const other = await interact(buttonInteraction(app, ADMIN, confirm.custom_id));
    expect(other.ephemeral).toBe(true);
    expect(h.emulator.nodes().find((n) => n.name === 'alice')!.status).toBe('RUNNING');
    const ok = await interact(buttonInteraction(app, OPERATOR, confirm.custom_id));
    expect(ok.type).toBe(7);
    expect(textOf(ok.data)).toMatch(/stop/i);
    expect(h.emulator.nodes().find((n) => n.name === 'alice')!.status).not.toBe('RUNNING');
  });

  it('opens the destroy modal (type 9) and refuses a wrong name privately', async () => {
    const open = await interact(commandInteraction(app, ADMIN, 'node', 'destroy', { node: 'carol' }));
    expect(open.type).toBe(9);
    expect(modalProblems(open.data)).toEqual([]);
    const wrong = await interact(modalSubmitInteraction(app, ADMIN, open.data.custom_id, { confirm_name: 'bob', backup: 'no' }));
    expect(wrong.type).toBe(4);
    expect(wrong.ephemeral).toBe(true);
    expect(h.emulator.nodes().map((n) => n.name)).toContain('carol');
  });

  it('defers a command when the service is slow, then edits the original answer', async () => {
    h.emulator.faults.latencyMs = 300;
    h.deferAfter.ms = 100;
    try {
      const d = commandInteraction(app, READER, 'node', 'info', { node: 'bob' });
      const from = h.fake.calls.length ? h.fake.calls[h.fake.calls.length - 1].seq : 0;
      const res = await post(d);
      expect(res.json).toEqual({ type: 5 });
      // When the deferral arrived, the answer had not been sent yet.
      expect(h.fake.calls.filter((c) => c.seq > from && c.path.includes(d.token))).toEqual([]);
      const edit = await h.fake.waitForCall((c) => c.method === 'PATCH' && c.path === `/webhooks/${app}/${d.token}/messages/@original`, {
        from,
      });
      expect(edit.authorization).toBeUndefined();
      expect(messageProblems(edit.body)).toEqual([]);
      expect(textOf(edit.body)).toMatch(/bob/);
    } finally {
      h.emulator.faults.latencyMs = 0;
      h.deferAfter.ms = 2_500;
    }
  });

  it('after a deferral, sends a private answer as an ephemeral follow-up, not in the channel', async () => {
    h.emulator.faults.latencyMs = 300;
    h.deferAfter.ms = 100;
    try {
      const d = commandInteraction(app, READER, 'node', 'stop', { node: 'bob' });
      const a = await interact(d);
      expect(a.type).toBe(5);
      expect(a.later.map((c) => c.method)).toEqual(['PATCH', 'POST']);
      expect(textOf(a.later[0].body)).not.toMatch(/operate/);
      expect(a.later[1].path).toBe(`/webhooks/${app}/${d.token}`);
      expect(a.ephemeral).toBe(true);
      expect(textOf(a.data)).toMatch(/operate/);
    } finally {
      h.emulator.faults.latencyMs = 0;
      h.deferAfter.ms = 2_500;
    }
  });

  it('defers a button click when the service is slow (type 6), then edits the message', async () => {
    const ask = await interact(commandInteraction(app, OPERATOR, 'node', 'stop', { node: 'bob' }));
    const confirm = buttonsOf(ask.data).find((b) => b.style === 4)!;
    h.emulator.faults.latencyMs = 300;
    h.deferAfter.ms = 100;
    try {
      const d = buttonInteraction(app, OPERATOR, confirm.custom_id);
      const res = await post(d);
      expect(res.json).toEqual({ type: 6 });
      const edit = await h.fake.waitForCall((c) => c.path === `/webhooks/${app}/${d.token}/messages/@original`);
      expect(edit.method).toBe('PATCH');
      expect(textOf(edit.body)).toMatch(/stop/i);
    } finally {
      h.emulator.faults.latencyMs = 0;
      h.deferAfter.ms = 2_500;
    }
  });

  it('waits out a rate limit on the interaction webhook instead of dropping the deferred answer', async () => {
    h.emulator.faults.latencyMs = 300;
    h.deferAfter.ms = 100;
    try {
      const d = commandInteraction(app, READER, 'node', 'info', { node: 'alice' });
      const original = `/webhooks/${app}/${d.token}/messages/@original`;
      h.fake.fail({
        method: 'PATCH',
        path: new RegExp(`^/webhooks/${app}/${d.token}/messages/@original$`),
        status: 429,
        body: { message: 'You are being rate limited.', retry_after: 0.05, global: false },
        headers: {
          'retry-after': '0.05',
          'x-ratelimit-limit': '5',
          'x-ratelimit-remaining': '0',
          'x-ratelimit-reset-after': '0.05',
          'x-ratelimit-bucket': 'wh1',
        },
      });
      const res = await post(d);
      expect(res.json).toEqual({ type: 5 });
      const limited = await h.fake.waitForCall((c) => c.method === 'PATCH' && c.path === original);
      const retried = await h.fake.waitForCall((c) => c.method === 'PATCH' && c.path === original, { from: limited.seq });
      expect(textOf(retried.body)).toMatch(/alice/);
    } finally {
      h.emulator.faults.latencyMs = 0;
      h.deferAfter.ms = 2_500;
    }
  });
});
