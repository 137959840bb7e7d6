/**
 * Bad input at the webhook endpoint: random bytes, arbitrary JSON (signed with the right
 * key, so it gets past verification and exercises the parser), huge fields, deep nesting,
 * unicode and injection attempts. Every answer is a clean 4xx with a message (or a 2xx for
 * a genuine event), never a 5xx or a hang, and nothing invalid reaches a channel.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import fc from 'fast-check';
import { startHarness, type Harness } from '../support/harness.js';
import { startFakeSlack, type FakeSlack } from '../fakes/slack/index.js';
import { waitFor } from '../support/wait-for.js';

describe('the webhook endpoint under bad input', () => {
  let h: Harness;
  let slack: FakeSlack;
  let nodeId: string;
  beforeAll(async () => {
    slack = await startFakeSlack();
    h = await startHarness({
      env: { SLACK_BOT_TOKEN: 'xoxb-test', SLACK_SIGNING_SECRET: 'secret', SLACK_API_URL: slack.apiUrl },
      emulator: { seed: 'demo' },
    });
    nodeId = (await h.app.services.hosting.listNodes())[0].nodeId;
    await h.app.services.watches.add({
      place: { platform: 'slack', channelId: 'CFUZZ' },
      target: 'all',
      actor: { platform: 'slack', userId: 'U1' },
    });
  });
  afterAll(async () => {
    await h.close();
    await slack.close();
  });
  const posts = () => slack.callsTo('chat.postMessage').filter((c) => c.args.channel === 'CFUZZ').length;
  const events = async () => (await h.app.db.value<number>('SELECT count(*) FROM notify_events')) ?? 0;

  const post = async (body: Buffer, signed: boolean, path = '/webhooks/service') => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (signed) headers['x-service-signature'] = h.emulator.sign(body);
    const r = await fetch(`${h.url}${path}`, { method: 'POST', headers, body: new Uint8Array(body) });
    const text = await r.text();
    return { status: r.status, text };
  };
  const outboxRows = async () => (await h.app.db.value<number>('SELECT count(*) FROM notify_outbox')) ?? 0;

  it('random bytes without a signature: 401, with a message, nothing stored', async () => {
    const before = await outboxRows();
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 2048 }), async (bytes) => {
        const r = await post(Buffer.from(bytes), false);
        expect(r.status).toBe(401);
        expect(r.text).toMatch(/signature/i);
      }),
      { numRuns: 60 },
    );
    expect(await outboxRows()).toBe(before);
  });

  it('arbitrary signed JSON that is not an event of a known node: a 4xx with a message, nothing stored or posted', async () => {
    const [eventsBefore, outboxBefore] = [await events(), await outboxRows()];
    await fc.assert(
      fc.asyncProperty(fc.jsonValue({ maxDepth: 6 }), async (value) => {
        const r = await post(Buffer.from(JSON.stringify(value) ?? 'null'), true);
        expect(r.status).toBeGreaterThanOrEqual(400);
        expect(r.status).toBeLessThan(500);
        expect(JSON.parse(r.text).message.length).toBeGreaterThan(0);
      }),
      { numRuns: 150 },
    );
    expect(await events()).toBe(eventsBefore);
    expect(await outboxRows()).toBe(outboxBefore);
  });

  it('wrong types, unicode and injection attempts in fields are refused as an unknown node or bad shape', async () => {
    const nasty = fc.oneof(
      fc.constantFrom(
        '<!channel>',
        '<@U123>',
        '@everyone',
        '`rm -rf`',
        '*bold*',
        '"; DROP TABLE notify_events; --',
        '\u202e\u0000\uffff',
        '🟢'.repeat(200),
      ),
      fc.string({ unit: 'grapheme', maxLength: 200 }),
      fc.integer(),
      fc.constant(null),
      fc.array(fc.string(), { maxLength: 3 }),
    );
    const before = await outboxRows();
    await fc.assert(
      fc.asyncProperty(nasty, nasty, async (id, status) => {
        const body = Buffer.from(
          JSON.stringify({
            eventType: 'NODE_STATUS_UPDATED',
            eventTimestamp: new Date().toISOString(),
            details: { nodeId: id, status },
            nodeId: id,
          }),
        );
        const r = await post(body, true);
        expect(r.status).toBeGreaterThanOrEqual(400);
        expect(r.status).toBeLessThan(500);
      }),
      { numRuns: 100 },
    );
    expect(await outboxRows()).toBe(before);
  });

  it('a huge field, deep nesting and an oversized body get clean refusals', async () => {
    const huge = await post(Buffer.from(JSON.stringify({ nodeId: 'x'.repeat(900_000) })), true);
    expect(huge.status).toBeGreaterThanOrEqual(400);
    expect(huge.status).toBeLessThan(500);

    const deep = await post(Buffer.from('['.repeat(100_000) + ']'.repeat(100_000)), true);
    expect(deep.status).toBeGreaterThanOrEqual(400);
    expect(deep.status).toBeLessThan(500);

    const oversized = await post(Buffer.alloc(1024 * 1024 + 10, 0x20), true);
    expect(oversized.status).toBe(413);

    // The server is still healthy and still accepts a genuine event.
    expect((await fetch(`${h.url}/healthz`)).status).toBe(200);
    const ok = await post(
      Buffer.from(
        JSON.stringify({
          eventType: 'NODE_STATUS_UPDATED',
          eventTimestamp: new Date().toISOString(),
          details: { nodeId, status: 'RUNNING' },
          nodeId,
        }),
      ),
      true,
    );
    expect(ok.status).toBe(202);
    // Only that genuine event reached the channel.
    await waitFor(() => posts() === 1, { timeout: 5_000, what: 'the genuine event posted' });
    expect(JSON.stringify(slack.callsTo('chat.postMessage').at(-1)!.args)).toMatch(/RUNNING/);
  });
});
