/**
 * The Slack adapter alone (real Bolt, real fastify server for HTTP mode) against the fake
 * Slack, around any Dispatcher. The whole-bot end-to-end tests use test/support/harness.ts.
 */
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../../../src/config.js';
import type { Dispatcher } from '../../../src/engine/types.js';
import { createHttpServer } from '../../../src/http/server.js';
import { createLogger } from '../../../src/log.js';
import { createMetrics } from '../../../src/metrics.js';
import { createSlackAdapter, type SlackAdapter, type SlackAdapterOptions } from '../../../src/chat/slack/index.js';
import { startFakeSlack, createSlackDriver, type FakeSlack, type SlackDriver, type SlackMode } from '../../fakes/slack/index.js';

export const SIGNING_SECRET = 'test-signing-secret-0123456789';

export interface SlackBot {
  fake: FakeSlack;
  adapter: SlackAdapter;
  driver: SlackDriver;
  http?: FastifyInstance;
  eventsUrl?: string;
  close(): Promise<void>;
}

export async function startSlackBot(mode: SlackMode, dispatcher: Dispatcher, extra: Partial<SlackAdapterOptions> = {}): Promise<SlackBot> {
  const fake = await startFakeSlack();
  const config = loadConfig({
    SLACK_BOT_TOKEN: 'xoxb-test-bot-token',
    ...(mode === 'socket' ? { SLACK_APP_TOKEN: 'xapp-test-app-token' } : { SLACK_SIGNING_SECRET: SIGNING_SECRET }),
    SLACK_API_URL: fake.apiUrl,
    LOG_LEVEL: 'silent',
  });
  const logger = createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
  const metrics = createMetrics({ defaults: false });
  const adapter = createSlackAdapter({ config, dispatcher, logger, metrics, ...extra });
  let http: FastifyInstance | undefined;
  let eventsUrl: string | undefined;
  if (mode === 'http') {
    http = await createHttpServer({ logger, metrics, routes: adapter.routes ? [adapter.routes] : [] });
    const url = await http.listen({ port: 0, host: '127.0.0.1' });
    eventsUrl = `${url}/slack/events`;
  }
  const started = adapter.start();
  if (mode === 'socket') await fake.connected();
  await started;
  const driver = createSlackDriver(fake, mode, eventsUrl ? { eventsUrl, signingSecret: SIGNING_SECRET } : undefined);
  return {
    fake,
    adapter,
    driver,
    http,
    eventsUrl,
    async close() {
      await adapter.stop().catch(() => undefined);
      await http?.close();
      await fake.close();
    },
  };
}
