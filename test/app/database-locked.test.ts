/**
 * The database locked by someone else: a webhook is not acknowledged (503 with
 * Retry-After, so the service redelivers), nothing half-stored, and once the lock is gone
 * the redelivery is accepted and posted exactly once, even when delivered again.
 */
import { describe, it, expect, afterAll } from 'vitest';
import Database from 'better-sqlite3';
import { startHarness, type Harness } from '../support/harness.js';
import { startFakeSlack, type FakeSlack } from '../fakes/slack/index.js';
import { waitFor } from '../support/wait-for.js';

describe('the database locked', () => {
  let h: Harness;
  let slack: FakeSlack;
  afterAll(async () => {
    await h?.close();
    await slack?.close();
  });

  it('refuses the event with 503 while locked, then accepts the redelivery and posts it once', async () => {
    slack = await startFakeSlack();
    h = await startHarness({
      env: { SLACK_BOT_TOKEN: 'xoxb-test', SLACK_SIGNING_SECRET: 'secret', SLACK_API_URL: slack.apiUrl },
      emulator: { seed: 'demo' },
    });
    await h.app.services.watches.add({
      place: { platform: 'slack', channelId: 'CLOCK' },
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
      fetch(`${h.url}/webhooks/service`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-service-signature': h.emulator.sign(body) },
        body: new Uint8Array(body),
      });
    const postsToChannel = () => slack.callsTo('chat.postMessage').filter((c) => c.args.channel === 'CLOCK');

    const other = new Database(h.dbPath);
    other.exec('BEGIN IMMEDIATE'); // holds the write lock
    const refused = await deliver();
    other.exec('ROLLBACK');
    other.close();
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(await refused.json()).toMatchObject({ error: 'store_busy' });
    expect(await h.app.db.value('SELECT count(*) FROM notify_events')).toBe(0);

    // The service redelivers: accepted and posted.
    expect((await deliver()).status).toBe(202);
    await waitFor(() => postsToChannel().length === 1, { timeout: 5_000, what: 'the event posted' });
    expect(JSON.stringify(postsToChannel()[0].args)).toMatch(/alice[\s\S]*PAUSED/);

    // A further redelivery is acknowledged as a duplicate and not posted again.
    const again = await deliver();
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ duplicate: true });
    await h.app.stop({ timeoutMs: 3_000 }); // drains the outbox: anything due would be posted now
    expect(postsToChannel().length).toBe(1);
    expect(h.app.db.open).toBe(false);
  });
});
