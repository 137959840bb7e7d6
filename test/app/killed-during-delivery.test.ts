/**
 * The bot killed (SIGKILL) while a post to Slack is in flight, then started again on the
 * same database: the alert is not lost. Delivery is at least once: Slack may already have
 * shown the message whose answer never came back, so the restarted bot may post it again,
 * but only that once more, and it never goes missing.
 */
import { describe, it, expect, afterAll } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { openDatabase } from '../../src/store/index.js';
import { spawnBot, type SpawnedBot } from '../support/spawn-bot.js';
import { postSigned, slashCommandPayload } from '../fakes/slack/index.js';
import { waitFor } from '../support/wait-for.js';
import { startSlackApiStub } from '../support/slack-api-stub.js';

describe('the bot killed during delivery', () => {
  let emulator: Emulator;
  const bots: SpawnedBot[] = [];
  afterAll(async () => {
    for (const b of bots) b.child.kill('SIGKILL');
    await emulator?.close();
  });

  it('posts the alert after a restart on the same database: not lost, and not more than once again', async () => {
    emulator = await startEmulator({ seed: 'demo', lifecycleDelayMs: 20 });
    const dir = mkdtempSync(join(tmpdir(), 'rln-kill-'));
    const env = (slackUrl: string) => ({
      SERVICE_URL: emulator.url,
      SERVICE_API_TOKEN: emulator.token,
      NODE_API_TOKEN: emulator.nodeApiToken,
      DATABASE_PATH: join(dir, 'bot.db'),
      PORT: '0',
      HOST: '127.0.0.1',
      SLACK_BOT_TOKEN: 'xoxb-kill-test',
      SLACK_SIGNING_SECRET: 'kill-test-secret',
      SLACK_API_URL: slackUrl,
      ADMIN_USERS: 'slack:UADMIN',
    });

    // First life: Slack receives the post but never answers; the bot is killed meanwhile.
    // Its answers to chat.postMessage are never released: the bot is killed meanwhile.
    const holding = await startSlackApiStub({ hold: 'chat.postMessage' });
    const first = spawnBot(['start'], { env: env(holding.url) });
    bots.push(first);
    await waitFor(() => /"msg":"rln-chatops is ready"/.test(first.stderr()), { timeout: 120_000, what: 'the first bot ready' });
    const url = first.stderr().match(/"url":"(http:\/\/[^"]+)"/)![1];
    // The channel watches every node, asked the way a user asks: a signed /rln slash command.
    const watch = await postSigned(
      `${url}/slack/events`,
      'kill-test-secret',
      slashCommandPayload({
        user: { id: 'UADMIN', name: 'admin' },
        text: 'watch add all',
        responseUrl: `${holding.url}respond/1`,
        channelId: 'CKILL',
        teamId: 'T1',
      }),
    );
    expect(watch.status).toBe(200);
    await waitFor(() => holding.responds.length === 1, { timeout: 20_000, what: 'the watch confirmed' });
    expect(holding.responds[0]).toMatch(/Watching|watch/i);
    const node = emulator.nodes().find((n) => n.name === 'alice')!;
    const body = Buffer.from(
      JSON.stringify({
        eventType: 'NODE_STATUS_UPDATED',
        eventTimestamp: new Date(Date.now() - 60_000).toISOString(),
        details: { nodeId: node.nodeId, status: 'FAILED' },
        nodeId: node.nodeId,
      }),
    );
    const accepted = await fetch(`${url}/webhooks/service`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-signature': emulator.sign(body) },
      body: new Uint8Array(body),
    });
    expect(accepted.status).toBe(202);
    await waitFor(() => holding.posts.length === 1, { timeout: 20_000, what: 'the post in flight' });
    first.child.kill('SIGKILL');
    await first.exited;
    await holding.close();

    // Second life, same database, Slack answering: the alert is posted.
    const answering = await startSlackApiStub();
    const second = spawnBot(['start'], { env: env(answering.url) });
    bots.push(second);
    await waitFor(() => answering.posts.length >= 1, { timeout: 120_000, what: 'the alert posted after the restart' });
    // Stopped at once: whatever it still had to post to the channel, it posted while stopping or
    // left in the outbox. Neither happened: the alert went out once more, and nothing is left.
    second.child.kill('SIGTERM');
    expect((await second.exited).code).toBe(0);
    expect(answering.posts).toEqual(['CKILL']);
    const db = openDatabase(join(dir, 'bot.db'));
    try {
      const rows = await db.all<{ kind: string; state: string }>('SELECT kind, state FROM notify_outbox WHERE channel_id = ?', ['CKILL']);
      expect(rows.length, JSON.stringify(rows)).toBeGreaterThan(0);
      expect(
        rows.filter((r) => r.state !== 'sent'),
        JSON.stringify(rows),
      ).toEqual([]);
    } finally {
      await db.close();
    }
    await answering.close();
  }, 300_000);
});
