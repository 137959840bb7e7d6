/**
 * The bot with Slack pointed at the fake Slack, for end-to-end tests. It uses the lead's
 * harness (the real src/app.ts). While app.ts cannot start (other rooms in progress), it falls
 * back to the same core pieces put together here: emulator, store, real service clients,
 * registry + dispatcher from src/core, and the Slack adapter (HTTP mode on the real fastify server).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../../src/config.js';
import { createRegistry, createDispatcher, type Services } from '../../../src/core/index.js';
import { allCommands } from '../../../commands/index.js';
import { openDatabase } from '../../../src/store/index.js';
import { createHostingClient, type HostedNode } from '../../../src/hosting/index.js';
import { createNodeApiClient, loadNodeCredentials } from '../../../src/node-api/index.js';
import { startEmulator, type Emulator } from '../../../src/emulator/index.js';
import { createHttpServer } from '../../../src/http/server.js';
import { createLogger } from '../../../src/log.js';
import { createMetrics } from '../../../src/metrics.js';
import { createSlackAdapter } from '../../../src/chat/slack/index.js';
import { startHarness } from '../../support/harness.js';
import type { SlackMode } from '../../fakes/slack/index.js';

/** The password of the demo nodes (initialised and unlocked at start). */
export const DEMO_NODE_PASSWORD = 'demo-node-password-e2e';

export interface SlackWorld {
  emulator: Emulator;
  /** The bot's HTTP base URL. */
  url: string;
  /** 'harness' when the whole app (src/app.ts) runs. */
  via: 'harness' | 'core';
  close(): Promise<void>;
}

export async function startSlackWorld(mode: SlackMode, env: Record<string, string>): Promise<SlackWorld> {
  try {
    const h = await startHarness({ emulator: { seed: 'demo', lifecycleDelayMs: 30, demoPassword: DEMO_NODE_PASSWORD }, env });
    return { emulator: h.emulator, url: h.url, via: 'harness', close: () => h.close() };
  } catch (e) {
    console.warn(`slack e2e: the harness (src/app.ts) could not start (${(e as Error).message}); using the core pieces directly`);
  }
  const emulator = await startEmulator({ seed: 'demo', lifecycleDelayMs: 30, demoPassword: DEMO_NODE_PASSWORD });
  const dir = mkdtempSync(join(tmpdir(), 'rln-slack-e2e-'));
  const config = loadConfig({
    SERVICE_URL: emulator.url,
    SERVICE_API_TOKEN: emulator.token,
    NODE_API_TOKEN: emulator.nodeApiToken,
    DATABASE_PATH: join(dir, 'bot.db'),
    LOG_LEVEL: 'silent',
    ...env,
  });
  const logger = createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
  const metrics = createMetrics({ defaults: false });
  const db = openDatabase(config.DATABASE_PATH);
  const credentialsFor = loadNodeCredentials({ defaultToken: emulator.nodeApiToken });
  const services = {
    hosting: createHostingClient({ baseUrl: emulator.url, token: emulator.token, timeoutMs: 10_000 }),
    nodeApi: (node: HostedNode) => createNodeApiClient({ baseUrl: node.invoke_url!, credentials: credentialsFor(node) }),
    now: () => new Date(),
  } as Services;
  const dispatcher = createDispatcher({
    db,
    registry: createRegistry(allCommands),
    services,
    admins: config.ADMIN_USERS,
    operators: config.OPERATOR_USERS,
    logger,
    metrics,
  });
  Object.assign(services, { access: (dispatcher as any).roles, audit: (dispatcher as any).audit });
  const slack = createSlackAdapter({ config, dispatcher, logger, metrics });
  const http = await createHttpServer({ logger, metrics, routes: slack.routes ? [slack.routes] : [] });
  const url = await http.listen({ port: 0, host: '127.0.0.1' });
  await slack.start();
  void mode;
  return {
    emulator,
    url,
    via: 'core',
    async close() {
      await slack.stop().catch(() => undefined);
      await http.close();
      db.close();
      await emulator.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
