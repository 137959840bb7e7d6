/**
 * Reports on Slack end to end: the whole app (through the harness) driven by the fake Slack
 * in HTTP mode. An answer comes back through response_url; a scheduled report is posted with
 * chat.postMessage to the channel it was asked in, through the outbox and the notifier.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSlackWorld, type SlackWorld } from '../support/start-slack-world.js';
import { startFakeSlack, createSlackDriver, type FakeSlack, type SlackDriver } from '../fakes/slack/index.js';

const SIGNING_SECRET = 'reports-signing-secret-123';
const OPERATOR = { id: 'UOPS', name: 'otto' };
const READER = { id: 'UREAD', name: 'rita' };
const CHANNEL = 'CREPORTS1';

let fake: FakeSlack;
let h: SlackWorld;
let slack: SlackDriver;

beforeAll(async () => {
  fake = await startFakeSlack();
  h = await startSlackWorld('http', {
    SLACK_BOT_TOKEN: 'xoxb-reports-bot-token',
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: fake.apiUrl,
    OPERATOR_USERS: `slack:${OPERATOR.id}`,
  });
  slack = createSlackDriver(fake, 'http', { eventsUrl: `${h.url}/slack/events`, signingSecret: SIGNING_SECRET });
}, 90_000);
afterAll(async () => {
  await h?.close();
  await fake?.close();
});

async function ask(user: { id: string; name: string }, text: string) {
  return JSON.stringify((await slack.ask(user, text, { channelId: CHANNEL })).body);
}

describe('reports on Slack', () => {
  it('answers report balance all in the channel, with a monospace table and the paused node on one line', async () => {
    const body = await ask(READER, 'report balance all');
    expect(body).toContain('Team total');
    expect(body).toContain('```');
    expect(body).toContain('BTC settled');
    expect(body).toMatch(/carol.{0,20}paused/);
  });

  it('posts a scheduled report to the channel where it was asked', async () => {
    const made = await ask(OPERATOR, 'report schedule kind=channels node=alice cron="*/1 * * * * *" tz=Europe/Rome');
    expect(made).toContain('Scheduled: channels report for alice');
    const posted = await fake.waitForCalls('chat.postMessage', 1);
    const post = posted.find((c) => JSON.stringify(c.args).includes('Channel report'));
    expect(post?.args.channel).toBe(CHANNEL);
    const list = await ask(READER, 'report schedules');
    expect(list).toContain('Europe/Rome');
    // The schedules are a native table block: one row per schedule, its id first.
    const table = (JSON.parse(list) as { blocks: any[] }).blocks.find((b) => b.type === 'table');
    const id = table?.rows.find((r: any[]) => r[1].text === 'channels' && r[2].text === 'alice')?.[0].text;
    expect(id).toBeDefined();
    expect(await ask(OPERATOR, `report unschedule ${id}`)).toContain(`Removed schedule ${id}`);
  });
});
