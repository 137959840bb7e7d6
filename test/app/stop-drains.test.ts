import { describe, it, expect } from 'vitest';
import { startHarness } from '../support/harness.js';
import { startFakeSlack } from '../fakes/slack/index.js';

describe('stopping the bot', () => {
  it('posts the events it accepted before it closes, instead of leaving them for the next start', async () => {
    const slack = await startFakeSlack();
    const h = await startHarness({
      env: { SLACK_BOT_TOKEN: 'xoxb-test', SLACK_SIGNING_SECRET: 'secret', SLACK_API_URL: slack.apiUrl },
      emulator: { seed: 'demo' },
    });
    try {
      await h.app.services.watches.add({
        place: { platform: 'slack', channelId: 'COPS' },
        target: 'all',
        actor: { platform: 'slack', userId: 'U1' },
      });
      const node = (await h.app.services.hosting.listNodes()).find((n) => n.name === 'bob')!;
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
      await h.app.stop({ timeoutMs: 8_000 });
      const posts = slack.callsTo('chat.postMessage').filter((c) => c.args.channel === 'COPS');
      expect(posts.length).toBe(1);
      expect(JSON.stringify(posts[0].args)).toMatch(/bob[\s\S]*PAUSED/);
    } finally {
      await h.close();
      await slack.close();
    }
  });
});
