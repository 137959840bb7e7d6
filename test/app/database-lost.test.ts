/**
 * The whole bot on PostgreSQL, and the database connection lost (a relay between them cut):
 * a webhook is not acknowledged (503 with Retry-After, never 2xx for what it did not store),
 * /healthz says not ready, and once the database answers again the bot reconnects by itself:
 * ready, the redelivery accepted and posted once.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness.js';
import { startFakeSlack, type FakeSlack } from '../fakes/slack/index.js';
import { newPostgresUrl } from '../support/databases.js';
import { tcpRelay } from '../support/tcp-relay.js';
import { waitFor } from '../support/wait-for.js';

describe('the database lost and back', () => {
  let h: Harness | undefined;
  let slack: FakeSlack | undefined;
  let relay: Awaited<ReturnType<typeof tcpRelay>> | undefined;
  afterAll(async () => {
    relay?.restore();
    await h?.close();
    await slack?.close();
    await relay?.close();
  });

  it('refuses events with 503 + Retry-After and reports not ready while lost; reconnects, accepts the redelivery and posts it once', async () => {
    const url = new URL(await newPostgresUrl('lost'));
    relay = await tcpRelay(Number(url.port));
    url.port = String(relay.port);
    slack = await startFakeSlack();
    h = await startHarness({
      env: { DATABASE_URL: url.toString(), SLACK_BOT_TOKEN: 'xoxb-lost', SLACK_SIGNING_SECRET: 'lost-secret', SLACK_API_URL: slack.apiUrl },
      emulator: { seed: 'demo' },
    });
    expect(h.app.db.engine).toBe('postgres');
    await h.app.services.watches.add({
      place: { platform: 'slack', channelId: 'CLOST' },
      target: 'all',
      actor: { platform: 'slack', userId: 'U1' },
    });
    const node = (await h.app.services.hosting.listNodes()).find((n) => n.name === 'alice')!;
    const body = Buffer.from(
      JSON.stringify({
        eventType: 'NODE_STATUS_UPDATED',
        eventTimestamp: new Date(Date.now() - 60_000).toISOString(),
        details: { nodeId: node.nodeId, status: 'PAUSED' },
        nodeId: node.nodeId,
      }),
    );
    const deliver = () =>
      fetch(`${h!.url}/webhooks/service`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-service-signature': h!.emulator.sign(body) },
        body: new Uint8Array(body),
      });
    const health = async () => {
      const res = await fetch(`${h!.url}/healthz`);
      return { status: res.status, body: (await res.json()) as Record<string, string> };
    };
    expect((await health()).status).toBe(200);

    relay.cut();
    const refused = await deliver();
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBeTruthy();
    expect(await refused.json()).toMatchObject({ error: expect.stringMatching(/^store_/) });
    await waitFor(async () => (await health()).status === 503, { timeout: 10_000, what: '/healthz not ready' });
    expect((await health()).body).toMatchObject({ status: 'degraded', database: 'unreachable' });

    relay.restore();
    await waitFor(async () => (await health()).status === 200, { timeout: 15_000, what: '/healthz ready again' });
    expect((await deliver()).status).toBe(202);
    expect((await deliver()).status).toBe(200); // a second redelivery is a duplicate
    const posts = () => slack!.callsTo('chat.postMessage').filter((c) => c.args.channel === 'CLOST');
    await waitFor(() => posts().length === 1, { timeout: 10_000, what: 'the event posted' });
    await new Promise((r) => setTimeout(r, 1_500));
    expect(posts()).toHaveLength(1);
    expect(JSON.stringify(posts()[0].args)).toMatch(/alice[\s\S]*PAUSED/);
  });
});
