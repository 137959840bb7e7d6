// Each metric the bot declares moves when its event happens: none is declared and left dead.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startFakeSlack, type FakeSlack } from '../fakes/slack/index.js';
import { startHarness, type Harness } from '../support/harness.js';

/** The sum of a family's samples whose labels include `labels` (e.g. `endpoint="GET /api/nodes"`). */
function total(text: string, name: string, ...labels: string[]): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (!labels.every((l) => line.includes(l))) continue;
    sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

describe('every declared metric moves with its event', () => {
  let h: Harness;
  let slack: FakeSlack;
  const scrape = async () => (await fetch(`${h.url}/metrics`)).text();
  beforeAll(async () => {
    slack = await startFakeSlack();
    h = await startHarness({
      env: { SLACK_BOT_TOKEN: 'xoxb-test', SLACK_SIGNING_SECRET: 'secret', SLACK_API_URL: slack.apiUrl },
      emulator: { seed: 'demo' },
      processMetrics: true,
    });
  });
  afterAll(async () => {
    await h.close();
    await slack.close();
  });

  it("serves Node's process metrics under their standard names, and the bot's own under rln_chatops_", async () => {
    const text = await scrape();
    expect(text).toMatch(/^process_resident_memory_bytes \d+/m);
    expect(text).toMatch(/^# TYPE nodejs_eventloop_lag_seconds gauge$/m);
    expect(text).not.toMatch(/rln_chatops_process_/);
    expect(text).toMatch(/^# TYPE rln_chatops_commands_total counter$/m);
  });

  it('counts the hosting service calls a `node list` makes, and the command itself', async () => {
    const before = await scrape();
    const reply = await h.app.dispatcher.dispatch({
      via: 'typed',
      actor: { platform: 'shell', userId: 'local' },
      place: { platform: 'shell', channelId: 't' },
      text: 'node list',
    });
    expect(reply).toBeDefined();
    const after = await scrape();
    const calls = (t: string) => total(t, 'rln_chatops_service_calls_total', 'endpoint="GET /api/nodes"', 'outcome="ok"');
    expect(calls(after)).toBeGreaterThan(calls(before));
    const commands = (t: string) => total(t, 'rln_chatops_commands_total', 'command="node list"');
    expect(commands(after)).toBe(commands(before) + 1);
  });

  it('counts a refused webhook by its reason', async () => {
    const refused = (t: string) => total(t, 'rln_chatops_webhooks_total', 'outcome="refused"', 'reason="missing_signature"');
    const before = refused(await scrape());
    const r = await fetch(`${h.url}/webhooks/service`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(401);
    expect(refused(await scrape())).toBe(before + 1);
  });

  it('moves the outbox depth, the deliveries and their latency when a watched node changes', async () => {
    await h.app.services.watches.add({
      place: { platform: 'slack', channelId: 'CMETRICS' },
      target: 'all',
      actor: { platform: 'slack', userId: 'U1' },
    });
    const node = (await h.app.services.hosting.listNodes()).find((n) => n.name === 'bob')!;
    const before = await scrape();
    // Slack answers the first post with 429 and Retry-After 1 s, so the message waits in the outbox for a while.
    slack.fail('chat.postMessage', { status: 429, retryAfter: 1 });
    const body = Buffer.from(
      JSON.stringify({
        eventType: 'NODE_STATUS_UPDATED',
        eventTimestamp: new Date().toISOString(),
        details: { nodeId: node.nodeId, status: 'PAUSED' },
        nodeId: node.nodeId,
      }),
    );
    const r = await fetch(`${h.url}/webhooks/service`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-signature': h.emulator.sign(body) },
      body: new Uint8Array(body),
    });
    expect(r.status).toBe(202);
    await vi.waitFor(async () => expect(await scrape()).toMatch(/^rln_chatops_outbox_depth 1$/m), { timeout: 60_000, interval: 20 });
    await vi.waitFor(() => expect(slack.callsTo('chat.postMessage').filter((c) => c.args.channel === 'CMETRICS').length).toBe(2), {
      timeout: 60_000,
    });
    await vi.waitFor(async () => expect(await scrape()).toMatch(/^rln_chatops_outbox_depth 0$/m), { timeout: 60_000, interval: 20 });
    const after = await scrape();
    expect(total(after, 'rln_chatops_webhooks_total', 'outcome="accepted"')).toBe(
      total(before, 'rln_chatops_webhooks_total', 'outcome="accepted"') + 1,
    );
    expect(total(after, 'rln_chatops_deliveries_total', 'platform="slack"', 'outcome="rate_limited"')).toBe(
      total(before, 'rln_chatops_deliveries_total', 'platform="slack"', 'outcome="rate_limited"') + 1,
    );
    expect(total(after, 'rln_chatops_deliveries_total', 'platform="slack"', 'outcome="ok"')).toBeGreaterThan(
      total(before, 'rln_chatops_deliveries_total', 'platform="slack"', 'outcome="ok"'),
    );
    expect(total(after, 'rln_chatops_delivery_latency_seconds_count', 'platform="slack"')).toBeGreaterThan(
      total(before, 'rln_chatops_delivery_latency_seconds_count', 'platform="slack"'),
    );
  });

  it('counts a report run by kind and outcome', async () => {
    const runs = (t: string) => total(t, 'rln_chatops_report_runs_total', 'kind="balance"');
    const before = runs(await scrape());
    await h.app.services.reports.run('balance', 'all');
    expect(runs(await scrape())).toBe(before + 1);
  });

  it('counts the activity polls of a watched node by outcome, and their time', async () => {
    const node = (await h.app.services.hosting.listNodes()).find((n) => n.name === 'alice')!;
    await h.app.services.watches.add({
      place: { platform: 'slack', channelId: 'CPOLL' },
      target: node.nodeId,
      kinds: ['payments'],
      actor: { platform: 'slack', userId: 'U1' },
    });
    const polls = (t: string) => total(t, 'rln_chatops_activity_polls_total');
    const timed = (t: string) => total(t, 'rln_chatops_activity_poll_seconds_count');
    const before = await scrape();
    await h.app.activity.pollOnce();
    await h.app.activity.pollOnce();
    const after = await scrape();
    expect(polls(after)).toBeGreaterThan(polls(before));
    expect(timed(after)).toBeGreaterThan(timed(before));
    expect(after).toMatch(/^# TYPE rln_chatops_activity_events_total counter$/m);
    expect(after).toMatch(/^# TYPE rln_chatops_escalations_total counter$/m);
  });
});
