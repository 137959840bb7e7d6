/**
 * Golden files of real command answers: the whole bot against the demo emulator, asked over
 * Slack's signed slash-command requests, and what it answered kept as Block Kit JSON in
 * test/fixtures/slack/commands/ (ids, keys and times scrubbed). Paste one into Slack's Block Kit
 * Builder to see it; `UPDATE_GOLDEN=1 npx vitest run test/chat/slack/command-golden.test.ts`
 * rewrites them after a deliberate change, and the diff is reviewed like code.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RawTextElement, TableBlock } from '@slack/types';
import { messageTableProblems, tableBlockProblems } from '../../fakes/slack/table-blocks.js';
import { startSlackWorld, type SlackWorld } from '../../support/start-slack-world.js';
import { startFakeSlack, createSlackDriver, type FakeSlack, type SlackDriver } from '../../fakes/slack/index.js';
import { assertSlackLimits } from './assert-slack-limits.js';
import { expectGolden, scrubVolatile } from '../../support/golden.js';

const SIGNING_SECRET = 'golden-signing-secret';
const ADMIN = { id: 'UADMIN', name: 'ada' };
const READER = { id: 'UREAD', name: 'rita' };

const cases: Array<{ name: string; user: typeof ADMIN; text: string }> = [
  { name: 'help', user: READER, text: 'help' },
  { name: 'node-help', user: READER, text: 'node help' },
  { name: 'node-list', user: READER, text: 'node list' },
  { name: 'node-info', user: READER, text: 'node info alice' },
  { name: 'node-stop-confirm', user: ADMIN, text: 'node stop alice' },
  { name: 'node-stop-refused-role', user: READER, text: 'node stop alice' },
  { name: 'wallet-balance', user: READER, text: 'wallet balance alice' },
  { name: 'asset-list', user: READER, text: 'asset list alice' },
  { name: 'channel-list', user: READER, text: 'channel list alice' },
  { name: 'unknown-node', user: READER, text: 'node info nobody' },
  { name: 'bad-argument', user: ADMIN, text: 'invoice ln alice amt_msat=lots' },
];

describe('real command answers on Slack, kept as golden files', () => {
  let fake: FakeSlack;
  let h: SlackWorld;
  let slack: SlackDriver;

  beforeAll(async () => {
    fake = await startFakeSlack();
    h = await startSlackWorld('http', {
      SLACK_BOT_TOKEN: 'xoxb-golden-bot-token',
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_API_URL: fake.apiUrl,
      ADMIN_USERS: `slack:${ADMIN.id}`,
    });
    slack = createSlackDriver(fake, 'http', { eventsUrl: `${h.url}/slack/events`, signingSecret: SIGNING_SECRET });
  }, 90_000);

  afterAll(async () => {
    await h?.close();
    await fake?.close();
  });

  it.each(cases)('answers `/rln $text` as the golden file $name', async ({ name, user, text }) => {
    const body = (await slack.ask(user, text)).body as Record<string, unknown>;
    assertSlackLimits(body as never);
    expectGolden(`slack/commands/${name}`, scrubVolatile(body));
  });

  it("answers a list with Slack's native table block, valid as @slack/types defines it, one row per node", async () => {
    const body = (await slack.ask(READER, 'node list')).body as { blocks: any[]; attachments?: unknown };
    const tables = body.blocks.filter((b) => b.type === 'table');
    expect(tables).toHaveLength(1);
    expect(tableBlockProblems(tables[0])).toEqual([]);
    expect(messageTableProblems(body)).toEqual([]);
    const table: TableBlock = tables[0];
    const firstCells = table.rows.map((r) => (r[0] as RawTextElement).text);
    expect(firstCells).toEqual(['Name', 'alice', 'bob', 'carol']);
  });
});
