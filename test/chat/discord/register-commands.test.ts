import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRegistry } from '../../../src/core/index.js';
import { allCommands } from '../../../commands/index.js';
import { registerCommands } from '../../../src/chat/discord/index.js';
import { startFakeDiscord, type FakeDiscord } from '../../fakes/discord/index.js';
import { commandProblems } from './check-limits.js';

const TOKEN = 'register-token-0123456789abcdef';
let fake: FakeDiscord;

beforeAll(async () => {
  fake = await startFakeDiscord();
});
afterAll(async () => {
  await fake.close();
});

describe('registerCommands', () => {
  it('PUTs /rln to one guild when a guild is given', async () => {
    const registry = createRegistry(allCommands);
    const data = await registerCommands({ token: TOKEN, applicationId: fake.applicationId, apiUrl: fake.apiUrl, guildId: '555' }, registry);
    const put = await fake.waitForCall((c) => c.method === 'PUT' && c.path === `/applications/${fake.applicationId}/guilds/555/commands`);
    expect(put.body).toEqual([data]);
    expect(put.authorization).toBe(`Bot ${TOKEN}`);
    expect(commandProblems(put.body[0])).toEqual([]);
  });

  it('says what to check when Discord refuses, without the token', async () => {
    fake.fail({ method: 'PUT', path: /commands$/, status: 401, body: { message: '401: Unauthorized', code: 0 }, times: 3 });
    const err = await registerCommands({ token: TOKEN, applicationId: fake.applicationId, apiUrl: fake.apiUrl }, createRegistry(allCommands)).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(err?.message).toMatch(/DISCORD_TOKEN and DISCORD_APPLICATION_ID/);
    expect(err?.message).not.toContain(TOKEN);
  });
});
