/**
 * One chat platform down, the rest up (issue 27, item 4). The bot runs as its own process (the CLI,
 * as `npm start` does), with one platform behind a TCP relay the test cuts: unreachable at start,
 * then back, then gone again while the bot runs. Meanwhile the other platform's commands, a signed
 * service webhook and /healthz all work, and /healthz names the platform that is down; when the
 * platform comes back, the bot picks it up by itself.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { spawnBot, type SpawnedBot } from '../support/spawn-bot.js';
import { tcpRelay } from '../support/tcp-relay.js';
import { waitFor } from '../support/wait-for.js';
import { gatewayAnswer, textOf } from '../support/discord-e2e.js';
import { commandInteraction, startFakeDiscord, type FakeDiscord } from '../fakes/discord/index.js';
import { postSigned, slashCommandPayload, startFakeSlack, type FakeSlack } from '../fakes/slack/index.js';

const DISCORD_TOKEN = 'platform-down-discord-token-0123456789';
const SIGNING_SECRET = 'platform-down-signing-secret';
const ADMIN_DISCORD = { userId: '100000000000000077' };

const cleanups: Array<() => unknown> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await Promise.resolve(c()).catch(() => undefined);
});

async function health(url: string) {
  const res = await fetch(`${url}/healthz`);
  return { code: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** Waits until /healthz answers with these fields. */
async function healthShows(url: string, want: Record<string, unknown>, what: string) {
  let last: unknown;
  await waitFor(
    async () => {
      const h = await health(url);
      last = h;
      return Object.entries(want).every(([k, v]) => JSON.stringify(h.body[k]) === JSON.stringify(v)) && h.code === 200;
    },
    { timeout: 60_000, what: () => `${what}; last /healthz: ${JSON.stringify(last)}` },
  );
}

async function startBot(env: Record<string, string>, emulator: Emulator): Promise<{ bot: SpawnedBot; url: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'rln-platform-down-'));
  const bot = spawnBot(['start'], {
    env: {
      SERVICE_URL: emulator.url,
      SERVICE_API_TOKEN: emulator.token,
      NODE_API_TOKEN: emulator.nodeApiToken,
      DATABASE_PATH: join(dir, 'bot.db'),
      PORT: '0',
      HOST: '127.0.0.1',
      APPROVAL_POLICY: 'none',
      ...env,
    },
  });
  cleanups.push(() => bot.child.kill('SIGKILL'));
  await waitFor(() => /"msg":"rln-chatops is ready"/.test(bot.stderr()), {
    timeout: 120_000,
    what: () => `the bot ready; exit: ${bot.child.exitCode}; stderr:\n${bot.stderr().slice(-3000)}`,
  });
  return { bot, url: bot.stderr().match(/"url":"(http:\/\/[^"]+)"/)![1] };
}

/** A signed service webhook (alice FAILED): accepted. */
async function webhookAccepted(url: string, emulator: Emulator) {
  const node = emulator.nodes().find((n) => n.name === 'alice')!;
  const body = Buffer.from(
    JSON.stringify({
      eventType: 'NODE_STATUS_UPDATED',
      eventTimestamp: new Date().toISOString(),
      details: { nodeId: node.nodeId, status: 'FAILED' },
      nodeId: node.nodeId,
    }),
  );
  const res = await fetch(`${url}/webhooks/service`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-signature': emulator.sign(body) },
    body: new Uint8Array(body),
  });
  return res.status;
}

async function discordNodeList(fake: FakeDiscord) {
  const a = await gatewayAnswer(fake, commandInteraction(fake.applicationId, ADMIN_DISCORD, 'node', 'list'));
  return textOf(a.data);
}

describe('Discord down, Slack (HTTP mode) up', () => {
  it('serves Slack, webhooks and /healthz while Discord is unreachable, at start and later, and picks Discord up when it is back', async () => {
    const emulator = await startEmulator({ seed: 'demo', lifecycleDelayMs: 20 });
    cleanups.push(() => emulator.close());
    const slack = await startFakeSlack();
    cleanups.push(() => slack.close());
    const discord = await startFakeDiscord({ expectedToken: DISCORD_TOKEN });
    cleanups.push(() => discord.close());
    // Discord's REST and gateway both go through the relay, which starts cut: Discord unreachable.
    const relay = await tcpRelay(Number(new URL(discord.apiUrl).port));
    cleanups.push(() => relay.close());
    discord.advertiseGateway(`ws://127.0.0.1:${relay.port}`);
    relay.cut();

    const { bot, url } = await startBot(
      {
        SLACK_BOT_TOKEN: 'xoxb-platform-down',
        SLACK_SIGNING_SECRET: SIGNING_SECRET,
        SLACK_API_URL: slack.apiUrl,
        DISCORD_TOKEN,
        DISCORD_APPLICATION_ID: discord.applicationId,
        DISCORD_API_URL: `http://127.0.0.1:${relay.port}/api`,
        ADMIN_USERS: `slack:UADMIN,discord:${ADMIN_DISCORD.userId}`,
      },
      emulator,
    );
    expect(bot.child.exitCode).toBeNull();

    // /healthz answers 200 and names Discord as the platform down.
    await healthShows(url, { status: 'degraded', discord: 'unreachable', slack: 'connected', degraded: ['discord'] }, 'Discord degraded');
    expect((await health(url)).body.database).toBe('ok');
    // Slack commands work.
    const responseUrl = slack.responseUrl();
    const slash = await postSigned(
      `${url}/slack/events`,
      SIGNING_SECRET,
      slashCommandPayload({ user: { id: 'UADMIN' }, text: 'node list', responseUrl, teamId: slack.teamId }),
    );
    expect(slash.status).toBe(200);
    const [answer] = await slack.waitForResponds(responseUrl);
    expect(JSON.stringify(answer.body)).toContain('alice');
    // A signed webhook is taken in.
    expect(await webhookAccepted(url, emulator)).toBe(202);
    // The bot logs that it keeps trying, without a stack trace on the screen.
    await waitFor(() => /Discord is unreachable/.test(bot.stderr()), { timeout: 10_000, what: 'the retry logged' });

    // Discord comes up: the gateway is picked up without a restart, and its commands work.
    relay.restore();
    await discord.identified();
    await healthShows(url, { status: 'ok', discord: 'connected', slack: 'connected' }, 'Discord connected');
    expect(await discordNodeList(discord)).toContain('alice');

    // Discord goes away while the bot runs: the rest goes on, /healthz says so, and it comes back.
    relay.cut();
    await healthShows(url, { status: 'degraded', discord: 'unreachable', degraded: ['discord'] }, 'Discord lost later');
    const later = slack.responseUrl();
    await postSigned(
      `${url}/slack/events`,
      SIGNING_SECRET,
      slashCommandPayload({ user: { id: 'UADMIN' }, text: 'node list', responseUrl: later, teamId: slack.teamId }),
    );
    expect(JSON.stringify((await slack.waitForResponds(later))[0].body)).toContain('alice');
    expect(await webhookAccepted(url, emulator)).toBe(202);
    relay.restore();
    await healthShows(url, { status: 'ok', discord: 'connected' }, 'Discord back');
    await waitFor(() => discord.gatewaySessions() > 0, { timeout: 30_000, what: 'a gateway session again' });
    expect(await discordNodeList(discord)).toContain('alice');
    expect(bot.child.exitCode).toBeNull();
  }, 240_000);
});

describe('Slack (Socket Mode) down, Discord up', () => {
  it('serves Discord, webhooks and /healthz while Slack is unreachable, at start and later, and reconnects Slack when it is back', async () => {
    const emulator = await startEmulator({ seed: 'demo', lifecycleDelayMs: 20 });
    cleanups.push(() => emulator.close());
    const slack: FakeSlack = await startFakeSlack();
    cleanups.push(() => slack.close());
    const discord = await startFakeDiscord({ expectedToken: DISCORD_TOKEN });
    cleanups.push(() => discord.close());
    // Slack's Web API and its Socket Mode WebSocket both go through the relay, cut at start.
    const relay = await tcpRelay(Number(new URL(slack.url).port));
    cleanups.push(() => relay.close());
    slack.advertiseSocket(`ws://127.0.0.1:${relay.port}`);
    relay.cut();

    const { bot, url } = await startBot(
      {
        SLACK_BOT_TOKEN: 'xoxb-platform-down',
        SLACK_APP_TOKEN: 'xapp-platform-down',
        SLACK_API_URL: `http://127.0.0.1:${relay.port}/api/`,
        DISCORD_TOKEN,
        DISCORD_APPLICATION_ID: discord.applicationId,
        DISCORD_API_URL: discord.apiUrl,
        ADMIN_USERS: `slack:UADMIN,discord:${ADMIN_DISCORD.userId}`,
      },
      emulator,
    );
    await healthShows(url, { status: 'degraded', slack: 'unreachable', discord: 'connected', degraded: ['slack'] }, 'Slack degraded');
    await discord.identified();
    expect(await discordNodeList(discord)).toContain('alice');
    expect(await webhookAccepted(url, emulator)).toBe(202);

    // Slack comes up: Socket Mode connects by itself, and a slash command is answered.
    relay.restore();
    await slack.connected();
    await healthShows(url, { status: 'ok', slack: 'connected', discord: 'connected' }, 'Slack connected');
    const ask = async () => {
      const responseUrl = slack.responseUrl();
      await slack.sendEnvelope(
        'slash_commands',
        slashCommandPayload({ user: { id: 'UADMIN' }, text: 'node list', responseUrl, teamId: slack.teamId }),
      );
      return JSON.stringify((await slack.waitForResponds(responseUrl))[0].body);
    };
    expect(await ask()).toContain('alice');

    // Slack goes away while the bot runs (its WebSocket and Web API cut): the bot stays up.
    const before = slack.connectionCount;
    relay.cut();
    await healthShows(url, { status: 'degraded', slack: 'unreachable', degraded: ['slack'] }, 'Slack lost later');
    expect(await discordNodeList(discord)).toContain('alice');
    expect(await webhookAccepted(url, emulator)).toBe(202);
    relay.restore();
    await waitFor(() => slack.connectionCount > before, { timeout: 60_000, what: 'Socket Mode reconnected' });
    await healthShows(url, { status: 'ok', slack: 'connected' }, 'Slack back');
    expect(await ask()).toContain('alice');
    expect(bot.child.exitCode).toBeNull();
  }, 240_000);
});
