/**
 * A list longer than a page pages with buttons, end to end over Slack's signed HTTP requests
 * against the emulator: Next shows the next page in place of the message, and the click is the
 * clicker's, checked for their role and scope like any other button.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/harness.js';
import { startFakeSlack, createSlackDriver, type FakeSlack, type SlackDriver } from '../../fakes/slack/index.js';
import { messageTableProblems } from '../../fakes/slack/table-blocks.js';

const SIGNING_SECRET = 'paging-signing-secret-0123';
const ADA = { id: 'UADA', name: 'ada' };
const DAN = { id: 'UDAN', name: 'dan' };

function buttons(body: Record<string, any>): Array<{ id: string; label: string }> {
  const blocks = [...(body.blocks ?? []), ...(body.attachments ?? []).flatMap((a: any) => a.blocks ?? [])];
  return blocks
    .filter((b: any) => b.type === 'actions')
    .flatMap((b: any) => b.elements.map((e: any) => ({ id: e.action_id, label: e.text.text })));
}
const next = (body: Record<string, any>) => buttons(body).find((b) => /^Page \d+ ›$/.test(b.label));
const prev = (body: Record<string, any>) => buttons(body).find((b) => /^‹ Page \d+$/.test(b.label));

describe('paging lists on Slack', () => {
  let fake: FakeSlack;
  let h: Harness;
  let slack: SlackDriver;

  beforeAll(async () => {
    fake = await startFakeSlack();
    h = await startHarness({
      emulator: { seed: 'demo', demoPassword: 'paging-demo-password', lifecycleDelayMs: 30 },
      env: {
        SLACK_BOT_TOKEN: 'xoxb-paging-bot-token',
        SLACK_SIGNING_SECRET: SIGNING_SECRET,
        SLACK_API_URL: fake.apiUrl,
        ADMIN_USERS: `slack:${ADA.id}`,
        // Only those listed (or granted a role) may read.
        READ_USERS: `slack:${ADA.id}`,
      },
    });
    slack = createSlackDriver(fake, 'http', { eventsUrl: `${h.url}/slack/events`, signingSecret: SIGNING_SECRET });
  }, 90_000);

  afterAll(async () => {
    await h?.close();
    await fake?.close();
  });

  it('shows the next page in place of the list when Next is clicked, with a native table on each page', async () => {
    const first = await slack.ask(ADA, 'node list limit=2');
    expect(JSON.stringify(first.body)).toContain('showing 1-2 of 3');
    expect(prev(first.body)).toBeUndefined();
    expect(messageTableProblems(first.body)).toEqual([]);
    expect(first.body.blocks.some((b: any) => b.type === 'table')).toBe(true);

    const second = await slack.press(ADA, next(first.body)!.id);
    expect(second.body.replace_original).toBe(true);
    expect(JSON.stringify(second.body)).toContain('showing 3-3 of 3');
    expect(JSON.stringify(second.body)).toContain('carol');
    expect(next(second.body)).toBeUndefined();
    expect(messageTableProblems(second.body)).toEqual([]);

    const back = await slack.press(ADA, prev(second.body)!.id);
    expect(back.body.replace_original).toBe(true);
    expect(JSON.stringify(back.body)).toContain('showing 1-2 of 3');
  });

  it('refuses Next to a clicker who may not read, leaving the list as it was, and lets them page once they may', async () => {
    const list = await slack.ask(ADA, 'node list limit=1');
    const refused = await slack.press(DAN, next(list.body)!.id);
    expect(refused.body.replace_original).not.toBe(true);
    expect(JSON.stringify(refused.body)).toMatch(/read/);
    expect(JSON.stringify(refused.body)).not.toContain('showing 2-2 of 3');

    // Once Dan may read, the same button works for him.
    await slack.ask(ADA, 'access grant slack:UDAN read');
    const granted = await slack.press(DAN, next(list.body)!.id);
    expect(granted.body.replace_original).toBe(true);
    expect(JSON.stringify(granted.body)).toContain('showing 2-2 of 3');
  });
});
