/**
 * Roles that reach only some nodes, end to end over Slack's signed HTTP requests against the
 * emulator: a scoped operator is refused on another node (typed, by its dialog, and by an
 * incident's Restart button the notifier posted) with the reason, and works on their own node.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/harness.js';
import { startFakeSlack, createSlackDriver, type FakeSlack, type SlackDriver, type RespondCall } from '../../fakes/slack/index.js';
import { waitFor } from '../../support/wait-for.js';

const SIGNING_SECRET = 'scoped-signing-secret-0123';
const ADA = { id: 'UADA', name: 'ada' };
const SAM = { id: 'USAM', name: 'sam' };
const DAN = { id: 'UDAN', name: 'dan' };

const textOf = (r: { body: unknown } | { args: unknown }) => JSON.stringify('body' in r ? r.body : r.args);
function buttons(body: Record<string, any>): Array<{ id: string; label: string }> {
  const blocks = [...(body.blocks ?? []), ...(body.attachments ?? []).flatMap((a: any) => a.blocks ?? [])];
  return blocks
    .filter((b: any) => b.type === 'actions')
    .flatMap((b: any) => b.elements.map((e: any) => ({ id: e.action_id, label: e.text.text })));
}

describe('scoped roles on Slack', () => {
  let fake: FakeSlack;
  let h: Harness;
  let slack: SlackDriver;

  beforeAll(async () => {
    fake = await startFakeSlack();
    h = await startHarness({
      emulator: { seed: 'demo', lifecycleDelayMs: 30 },
      env: {
        SLACK_BOT_TOKEN: 'xoxb-scoped-bot-token',
        SLACK_SIGNING_SECRET: SIGNING_SECRET,
        SLACK_API_URL: fake.apiUrl,
        ADMIN_USERS: `slack:${ADA.id}`,
      },
    });
    slack = createSlackDriver(fake, 'http', { eventsUrl: `${h.url}/slack/events`, signingSecret: SIGNING_SECRET });
  }, 90_000);

  afterAll(async () => {
    await h?.close();
    await fake?.close();
  });

  const ask = (user: { id: string; name: string }, text: string): Promise<RespondCall> => slack.ask(user, text);
  const nodeId = (name: string) => h.emulator.nodes().find((n) => n.name === name)!.nodeId;
  const statusOf = (name: string) => h.emulator.nodes().find((n) => n.name === name)!.status;

  it('grants a role on some nodes only, and access list shows where', async () => {
    expect(textOf(await ask(ADA, 'access grant slack:USAM operator nodes=alice'))).toContain('role on nodes=alice only');
    expect(textOf(await ask(ADA, 'access grant <@UDAN> admin nodes=alice'))).toContain('slack:UDAN');
    const list = textOf(await ask(SAM, 'access list'));
    // One row of the native table: its cells, in order, within one row array.
    expect(list).toMatch(/"slack:USAM"[^\]]*"operate"[^\]]*"nodes=alice"/);
  });

  it('refuses a scoped operator on another node with the reason, and lets them act on their own', async () => {
    const refused = await ask(SAM, 'node stop bob');
    expect(refused.body.response_type).toBe('ephemeral');
    expect(textOf(refused)).toContain('on bob needs the operate role; your operate role (slack:USAM) is limited to nodes=alice');
    expect(textOf(refused)).toContain('nodes=alice,bob');
    expect(statusOf('bob')).toBe('RUNNING');

    const own = await ask(SAM, 'node stop alice');
    const confirm = buttons(own.body).find((b) => b.label === 'Confirm')!;
    const { responseUrl } = await slack.click(SAM, confirm.id);
    await fake.waitForResponds(responseUrl);
    expect(statusOf('alice')).not.toBe('RUNNING');
  });

  it('opens no dialog for a scoped admin on another node', async () => {
    const opened = fake.callsTo('views.open').length;
    const refused = await ask(DAN, 'node unlock bob');
    expect(textOf(refused)).toContain('limited to nodes=alice');
    expect(fake.callsTo('views.open')).toHaveLength(opened);
  });

  it("refuses a scoped operator the Restart button of another node's incident", async () => {
    const bob = nodeId('bob');
    await ask(ADA, 'watch add bob');
    await h.app.services.hosting.updateSettings(bob, { webhookUrl: `${h.url}/webhooks/service/${bob}` });
    const posted = fake.callsTo('chat.postMessage').length;
    h.emulator.setStatus(bob, 'FAILED');
    const incidents = () =>
      fake
        .callsTo('chat.postMessage')
        .slice(posted)
        .filter((c) => textOf(c).includes('Incident'));
    const [incident] = await waitFor(() => incidents().length && incidents(), { timeout: 5000, what: 'the incident message' });
    const restart = buttons(incident.args).find((b) => b.label === 'Restart')!;
    expect(restart).toBeDefined();

    const starts = () => h.emulator.requests.filter((q) => q.method === 'POST' && q.path.endsWith(`/${bob}/start`)).length;
    const before = starts();
    const { responseUrl } = await slack.click(SAM, restart.id);
    const [refusal] = await fake.waitForResponds(responseUrl);
    expect(refusal.body.response_type).toBe('ephemeral');
    expect(textOf(refusal)).toContain('limited to nodes=alice');
    expect(starts()).toBe(before);
    expect(statusOf('bob')).toBe('FAILED');
  });
});
