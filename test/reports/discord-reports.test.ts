/**
 * Reports on Discord end to end: the whole app (through the harness) connected to the fake
 * Discord over the gateway. An answer comes back as the interaction's message; a scheduled
 * report is posted to the channel it was asked in, through the outbox and the notifier.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness.js';
import { commandInteraction, startFakeDiscord, type FakeDiscord } from '../fakes/discord/index.js';
import { gatewayAnswer, textOf } from '../support/discord-e2e.js';

const OPERATOR = { userId: '100000000000000002', channelId: '900000000000000777' };
const READER = { userId: '100000000000000003', channelId: '900000000000000777' };

let fake: FakeDiscord;
let h: Harness;

beforeAll(async () => {
  fake = await startFakeDiscord();
  h = await startHarness({
    emulator: { seed: 'demo', demoPassword: 'demo-password-1', lifecycleDelayMs: 20 },
    env: {
      DISCORD_TOKEN: 'discord-bot-token-for-reports-0123456789',
      DISCORD_APPLICATION_ID: fake.applicationId,
      DISCORD_API_URL: fake.apiUrl,
      OPERATOR_USERS: `discord:${OPERATOR.userId}`,
    },
  });
  await fake.identified();
}, 90_000);
afterAll(async () => {
  await h?.close();
  await fake?.close();
});

const cmd = (who: typeof OPERATOR, sub: string, options: Record<string, string> = {}) =>
  gatewayAnswer(fake, commandInteraction(fake.applicationId, who, 'report', sub, options));

describe('reports on Discord', () => {
  it('answers report balance all with monospace tables and the paused node on one line', async () => {
    const a = await cmd(READER, 'balance', { node: 'all' });
    const text = textOf(a.data);
    expect(a.ephemeral).toBe(false);
    expect(text).toContain('Balance report');
    expect(text).toContain('```');
    expect(text).toContain('Team total');
    expect(text).toMatch(/carol.{0,20}paused/);
  });

  it('answers report channels for one node', async () => {
    const text = textOf((await cmd(READER, 'channels', { node: 'alice' })).data);
    expect(text).toContain('Channel report · alice');
  });

  it('posts a scheduled report to the channel where it was asked', async () => {
    const made = await cmd(OPERATOR, 'schedule', { kind: 'balance', node: 'alice', cron: '*/1 * * * * *' });
    expect(textOf(made.data)).toContain('Scheduled: balance report for alice');
    // The report for alice, not another post of this channel (an earlier report over every node
    // that took over 2 s on a busy machine posted its progress here).
    const post = await fake.waitForCall(
      (c) => c.method === 'POST' && c.path === `/channels/${OPERATOR.channelId}/messages` && textOf(c.body).includes('alice'),
      { timeoutMs: 8_000 },
    );
    expect(textOf(post.body)).toContain('Balance report');
    expect(textOf(post.body)).toContain('BTC settled');
    const list = textOf((await cmd(READER, 'schedules')).data);
    const id = /(\d+)\s+balance\s+alice/.exec(list)?.[1];
    expect(id).toBeDefined();
    expect(textOf((await cmd(OPERATOR, 'unschedule', { id: id! })).data)).toContain(`Removed schedule ${id}`);
  });
});
