import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRegistry } from '../../../src/engine/index.js';
import { allCommands } from '../../../commands/index.js';
import { registerCommands } from '../../../src/chat/discord/index.js';
import { startFakeDiscord, type FakeDiscord } from '../../fakes/discord/index.js';
import { commandProblems } from './check-limits.js';
import { startDiscordBot } from '../../support/start-discord-bot.js';

const TOKEN = 'register-token-0123456789abcdef';
let fake: FakeDiscord;

beforeAll(async () => {
  fake = await startFakeDiscord();
});
afterAll(async () => {
  await fake.close();
});

describe('registerCommands', () => {
  it('PUTs /rln and one /rln-<group> per group to one guild when a guild is given', async () => {
    const registry = createRegistry(allCommands);
    const data = await registerCommands({ token: TOKEN, applicationId: fake.applicationId, apiUrl: fake.apiUrl, guildId: '555' }, registry);
    const put = await fake.waitForCall((c) => c.method === 'PUT' && c.path === `/applications/${fake.applicationId}/guilds/555/commands`);
    expect(put.body).toEqual(data);
    expect(put.authorization).toBe(`Bot ${TOKEN}`);
    for (const c of put.body) expect(commandProblems(c)).toEqual([]);
    expect(fake.registeredCommands('555')).toEqual(expect.arrayContaining(['rln', 'rln-node', 'rln-wallet']));
  });

  it('replaces what was registered in that scope, so the old single /rln with groups goes, and --remove empties it', async () => {
    const registry = createRegistry(allCommands);
    await fetch(`${fake.apiUrl}/v10/applications/${fake.applicationId}/guilds/777/commands`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', authorization: `Bot ${TOKEN}` },
      body: JSON.stringify([
        { name: 'rln', type: 1, description: 'old', options: [] },
        { name: 'stale-thing', type: 1, description: 'gone', options: [] },
      ]),
    });
    expect(fake.registeredCommands('777')).toEqual(['rln', 'stale-thing']);
    await registerCommands({ token: TOKEN, applicationId: fake.applicationId, apiUrl: fake.apiUrl, guildId: '777' }, registry);
    expect(fake.registeredCommands('777')).not.toContain('stale-thing');
    expect(fake.registeredCommands('777')).toContain('rln-node');
    await registerCommands(
      { token: TOKEN, applicationId: fake.applicationId, apiUrl: fake.apiUrl, guildId: '777', remove: true },
      registry,
    );
    expect(fake.registeredCommands('777')).toEqual([]);
  });

  it('says what to check when Discord refuses, without the token', async () => {
    fake.fail({ method: 'PUT', path: /commands$/, status: 401, body: { message: '401: Unauthorized', code: 0 }, times: 3 });
    const err = await registerCommands(
      { token: TOKEN, applicationId: fake.applicationId, apiUrl: fake.apiUrl },
      createRegistry(allCommands),
    ).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(err?.message).toMatch(/DISCORD_TOKEN and DISCORD_APPLICATION_ID/);
    expect(err?.message).not.toContain(TOKEN);
  });

  it("registers in DISCORD_GUILD_ID's server at start-up too, not globally", async () => {
    const bot = await startDiscordBot({ guildId: '4242' });
    try {
      await bot.fake.waitForCall((c) => c.method === 'PUT' && c.path === `/applications/${bot.fake.applicationId}/guilds/4242/commands`);
      expect(bot.fake.registeredCommands('4242')).toContain('rln-node');
      expect(bot.fake.calls.some((c) => c.method === 'PUT' && c.path === `/applications/${bot.fake.applicationId}/commands`)).toBe(false);
    } finally {
      await bot.close();
    }
  }, 90_000);
});
