/**
 * The bot as configured by default paces Slack at about one message per second per
 * channel: three failures at once open three incidents in one channel, posted at least a
 * second apart (a lower bound on the gaps, which load cannot make flaky).
 */
import { describe, it, expect } from 'vitest';
import { startHarness } from '../support/harness.js';
import { startFakeSlack } from '../fakes/slack/index.js';
import { waitFor } from '../support/wait-for.js';

describe('default pacing on Slack', () => {
  it('posts to one channel at most once per second, with no pacing option given', async () => {
    const slack = await startFakeSlack();
    const h = await startHarness({
      env: { SLACK_BOT_TOKEN: 'xoxb-test', SLACK_SIGNING_SECRET: 'secret', SLACK_API_URL: slack.apiUrl },
      emulator: { seed: 'demo' },
    });
    try {
      await h.app.services.watches.add({
        place: { platform: 'slack', channelId: 'CPACE' },
        target: 'all',
        actor: { platform: 'slack', userId: 'U1' },
      });
      const nodes = await h.app.services.hosting.listNodes();
      for (const [i, n] of nodes.entries()) {
        const body = Buffer.from(
          JSON.stringify({
            eventType: 'NODE_STATUS_UPDATED',
            eventTimestamp: new Date(Date.now() - 60_000 + i * 1000).toISOString(),
            details: { nodeId: n.nodeId, status: 'FAILED' },
            nodeId: n.nodeId,
          }),
        );
        const r = await fetch(`${h.url}/webhooks/service`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-service-signature': h.emulator.sign(body) },
          body: new Uint8Array(body),
        });
        expect(r.status).toBe(202);
      }
      const inChannel = () =>
        slack.calls.filter((c) => (c.method === 'chat.postMessage' || c.method === 'chat.update') && c.args.channel === 'CPACE');
      await waitFor(() => inChannel().length >= nodes.length, { timeout: 10_000, what: 'an incident per node' });
      const calls = inChannel();
      for (let i = 1; i < calls.length; i++) expect(calls[i].at - calls[i - 1].at).toBeGreaterThanOrEqual(950);
    } finally {
      await h.close();
      await slack.close();
    }
  }, 90_000);
});
