/**
 * The signed chat endpoints of the whole bot (Slack HTTP mode, Discord HTTP interactions):
 * replays refused across a restart, early refusal of unsigned bodies, Slack's unsigned
 * ssl_check, and a signed Discord body that is not an interaction.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness.js';
import { startFakeSlack, slashCommandPayload, postSigned, type FakeSlack } from '../fakes/slack/index.js';
import { createInteractionSigner, pingInteraction, startFakeDiscord, type FakeDiscord } from '../fakes/discord/index.js';
import { postHeadOnly } from '../support/raw-http.js';

const SIGNING_SECRET = 'guards-signing-secret-0123456789';
const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

async function bot() {
  const slack: FakeSlack = await startFakeSlack();
  const discord: FakeDiscord = await startFakeDiscord();
  const signer = createInteractionSigner();
  const h: Harness = await startHarness({
    env: {
      SLACK_BOT_TOKEN: 'xoxb-guards-bot-token',
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_API_URL: slack.apiUrl,
      DISCORD_PUBLIC_KEY: signer.publicKeyHex,
      DISCORD_APPLICATION_ID: discord.applicationId,
      DISCORD_API_URL: discord.apiUrl,
    },
  });
  cleanup.push(
    () => slack.close(),
    () => discord.close(),
    () => h.close(),
  );
  const discordPost = (raw: string, headers = signer.headers(raw)) =>
    fetch(`${h.url}/discord/interactions`, { method: 'POST', headers, body: raw });
  return { h, slack, discord, signer, discordPost };
}

describe('replays across a restart', () => {
  it('refuses a Slack request replayed to a restarted bot inside the 5-minute window', async () => {
    const t = await bot();
    const form = slashCommandPayload({ user: { id: 'U1', name: 'ann' }, text: 'help', responseUrl: t.slack.responseUrl() });
    const timestampSec = Math.floor(Date.now() / 1000);
    expect((await postSigned(`${t.h.url}/slack/events`, SIGNING_SECRET, form, { timestampSec })).status).toBe(200);
    await t.h.restart();
    const replay = await postSigned(`${t.h.url}/slack/events`, SIGNING_SECRET, form, { timestampSec });
    expect(replay.status).toBe(401);
    const fresh = await postSigned(`${t.h.url}/slack/events`, SIGNING_SECRET, { ...form, trigger_id: 'another' }, { timestampSec });
    expect(fresh.status).toBe(200);
  });

  it('refuses a Discord interaction replayed to a restarted bot', async () => {
    const t = await bot();
    const raw = JSON.stringify(pingInteraction(t.discord.applicationId));
    const headers = t.signer.headers(raw);
    expect((await t.discordPost(raw, headers)).status).toBe(200);
    await t.h.restart();
    expect((await t.discordPost(raw, headers)).status).toBe(401);
  });

  it('refuses on a second bot instance sharing the database what the first accepted', async () => {
    const t = await bot();
    const { createApp } = await import('../../src/app/create-app.js');
    const { createLogger } = await import('../../src/log.js');
    const second = await createApp({ config: t.h.app.config, logger: createLogger({ level: 'silent' }), shell: false });
    const { url: secondUrl } = await second.start();
    cleanup.push(() => second.stop({ timeoutMs: 2_000 }));
    const form = slashCommandPayload({ user: { id: 'U1', name: 'ann' }, text: 'help', responseUrl: t.slack.responseUrl() });
    const timestampSec = Math.floor(Date.now() / 1000);
    expect((await postSigned(`${t.h.url}/slack/events`, SIGNING_SECRET, form, { timestampSec })).status).toBe(200);
    expect((await postSigned(`${secondUrl}/slack/events`, SIGNING_SECRET, form, { timestampSec })).status).toBe(401);
  });

  it('prunes remembered requests once their window has passed', async () => {
    const t = await bot();
    const raw = JSON.stringify(pingInteraction(t.discord.applicationId));
    expect((await t.discordPost(raw)).status).toBe(200);
    const count = async () => (await t.h.app.db.value<number>('SELECT COUNT(*) FROM http_replays')) ?? 0;
    expect(await count()).toBe(1);
    await t.h.app.db.run('UPDATE http_replays SET expires_at = 0');
    // The next request far enough into a new window prunes the expired row.
    const { createReplayGuard } = await import('../../src/http/index.js');
    const { createReplayStore } = await import('../../src/store/index.js');
    const g = createReplayGuard({ windowMs: 1000, store: createReplayStore(t.h.app.db), namespace: 'x' });
    expect(await g.firstTime('k', Date.now())).toBe(true);
    expect(await t.h.app.db.column('SELECT key FROM http_replays')).toEqual(['x:k']);
    expect(await count()).toBe(1);
  });
});

describe('early refusal on the chat endpoints', () => {
  it('answers an unsigned 1 MB POST to /slack/events with 401 before its body is sent', async () => {
    const t = await bot();
    const port = Number(new URL(t.h.url).port);
    const r = postHeadOnly(port, '/slack/events', 1024 * 1024);
    cleanup.push(() => void r.socket.destroy());
    expect(await r.status).toBe(401);
  });

  it('answers an unsigned 1 MB POST to /discord/interactions with 401 before its body is sent', async () => {
    const t = await bot();
    const port = Number(new URL(t.h.url).port);
    const r = postHeadOnly(port, '/discord/interactions', 1024 * 1024);
    cleanup.push(() => void r.socket.destroy());
    expect(await r.status).toBe(401);
  });

  it('answers Slack’s unsigned ssl_check with 200, as Bolt’s own receiver does, and other unsigned requests with 401', async () => {
    const t = await bot();
    const form = (body: Record<string, string>) =>
      fetch(`${t.h.url}/slack/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(body).toString(),
      });
    expect((await form({ ssl_check: '1', token: 'verification-token' })).status).toBe(200);
    expect((await form({ command: '/rln', text: 'help' })).status).toBe(401);
  });

  it('answers a signed Discord body of null (or an array) with 400, without internal error text', async () => {
    const t = await bot();
    for (const raw of ['null', '[]', '42']) {
      const res = await t.discordPost(raw);
      expect(res.status).toBe(400);
      const text = await res.text();
      expect(text).toContain('interaction');
      expect(text).not.toMatch(/TypeError|Cannot read|stack/);
    }
  });
});
