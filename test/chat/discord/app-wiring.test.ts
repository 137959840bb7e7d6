/**
 * The whole app (src/app/create-app.ts through the harness) with Discord configured: it registers /rln,
 * connects the gateway, serves POST /discord/interactions on its one HTTP server, and posts
 * through the Discord poster.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/harness.js';
import {
  commandInteraction,
  createInteractionSigner,
  pingInteraction,
  startFakeDiscord,
  type FakeDiscord,
} from '../../fakes/discord/index.js';
import { gatewayAnswer, textOf } from '../../support/discord-e2e.js';
import { commandProblems, messageProblems } from './check-limits.js';

const ADMIN = { userId: '100000000000000001' };
const TOKEN = 'app-wiring-discord-token-0123456789';

let fake: FakeDiscord;
let h: Harness;
const signer = createInteractionSigner();

beforeAll(async () => {
  fake = await startFakeDiscord();
  h = await startHarness({
    emulator: { seed: 'demo' },
    env: {
      DISCORD_TOKEN: TOKEN,
      DISCORD_APPLICATION_ID: fake.applicationId,
      DISCORD_PUBLIC_KEY: signer.publicKeyHex,
      DISCORD_API_URL: fake.apiUrl,
      ADMIN_USERS: `discord:${ADMIN.userId}`,
    },
  });
  await fake.identified();
}, 90_000);

afterAll(async () => {
  await h?.close();
  await fake?.close();
});

describe('the app with Discord configured', () => {
  it('registers /rln at start-up', async () => {
    const put = await fake.waitForCall((c) => c.method === 'PUT' && c.path === `/applications/${fake.applicationId}/commands`);
    expect(commandProblems(put.body[0])).toEqual([]);
  });

  it('answers a command over the gateway', async () => {
    const a = await gatewayAnswer(fake, commandInteraction(fake.applicationId, ADMIN, 'node', 'list'));
    expect(messageProblems(a.data)).toEqual([]);
    expect(textOf(a.data)).toContain('alice');
  });

  it('serves signed HTTP interactions on its HTTP server', async () => {
    const body = JSON.stringify(pingInteraction(fake.applicationId));
    const ok = await fetch(`${h.url}/discord/interactions`, { method: 'POST', headers: signer.headers(body), body });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ type: 1 });
    const bad = await fetch(`${h.url}/discord/interactions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(bad.status).toBe(401);
  });

  it('posts the failure of a watched node to the Discord channel, with incident buttons', async () => {
    const channelId = '700000000000000042';
    const watch = await gatewayAnswer(
      fake,
      commandInteraction(fake.applicationId, { ...ADMIN, channelId }, 'watch', 'add', { node: 'alice' }),
    );
    expect(textOf(watch.data)).toMatch(/alice/);
    const alice = h.emulator.nodes().find((n) => n.name === 'alice')!;
    const body = JSON.stringify({
      eventType: 'NODE_STATUS_UPDATED',
      eventTimestamp: new Date().toISOString(),
      details: { nodeId: alice.nodeId, status: 'FAILED' },
      nodeId: alice.nodeId,
    });
    const res = await fetch(`${h.url}/webhooks/service`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-signature': h.emulator.sign(body) },
      body,
    });
    expect(res.status).toBeLessThan(300);
    const post = await fake.waitForCall((c) => c.method === 'POST' && c.path === `/channels/${channelId}/messages`, { timeoutMs: 8_000 });
    expect(post.authorization).toBe(`Bot ${TOKEN}`);
    expect(messageProblems(post.body)).toEqual([]);
    expect(textOf(post.body)).toMatch(/alice/);
    expect(textOf(post.body)).toMatch(/FAILED/);
    expect(post.body.components.flatMap((r: any) => r.components).length).toBeGreaterThan(0);
  });
});
