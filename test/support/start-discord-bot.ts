/**
 * The Discord side of the bot on loopback, composed for tests: the emulator as the service, the
 * real registry and dispatcher on a fresh SQLite file, the Discord adapter connected to the fake
 * Discord (gateway and REST), and its HTTP interactions on the bot's fastify server.
 * (test/support/harness.ts runs the whole app; this keeps the adapter's own knobs, such as the
 * deferral delay, reachable.)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { testDispatcher } from './dispatcher.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../../src/config.js';
import { silentLogger } from '../../src/log.js';
import { createMetrics } from '../../src/metrics.js';
import { openDatabase, type Db } from '../../src/store/index.js';
import { createHttpServer } from '../../src/http/server.js';
import { createHostingClient, type HostedNode } from '../../src/hosting/index.js';
import { createNodeApiClient, loadNodeCredentials } from '../../src/node-api/index.js';
import { startEmulator, type Emulator, type EmulatorOptions } from '../../src/emulator/index.js';
import { createRegistry, type CoreDispatcher, type Registry } from '../../src/engine/index.js';
import { allCommands } from '../../commands/index.js';
import { createDiscordAdapter, type DiscordAdapter } from '../../src/chat/discord/index.js';
import { createInteractionSigner, startFakeDiscord, type FakeDiscord, type InteractionSigner } from '../fakes/discord/index.js';

export const BOT_TOKEN = 'discord-bot-token-for-tests-0123456789';

export interface DiscordBot {
  fake: FakeDiscord;
  emulator: Emulator;
  signer: InteractionSigner;
  adapter: DiscordAdapter;
  dispatcher: CoreDispatcher;
  registry: Registry;
  db: Db;
  http: FastifyInstance;
  /** http://127.0.0.1:P (the bot's one HTTP server). */
  url: string;
  /** When the adapter defers an answer (default 2500 ms, Discord's real window); tests shorten it for one case. */
  deferAfter: { ms: number };
  close(): Promise<void>;
}

export async function startDiscordBot(
  opts: {
    admins?: string[];
    operators?: string[];
    emulator?: EmulatorOptions;
    /** Connect the gateway (default true). */
    gateway?: boolean;
    /** DISCORD_GUILD_ID: register the commands in this server. */
    guildId?: string;
    /** APPROVAL_POLICY and SPEND_LIMITS (default: none). */
    approvalPolicy?: string;
    spendLimits?: string;
    /** The bot's clock in ms (default: the real one). */
    now?: () => number;
  } = {},
): Promise<DiscordBot> {
  const fake = await startFakeDiscord({ expectedToken: BOT_TOKEN });
  const emulator = await startEmulator({ seed: 'demo', lifecycleDelayMs: 30, ...opts.emulator });
  const signer = createInteractionSigner();
  const dir = mkdtempSync(join(tmpdir(), 'rln-discord-'));
  const config = loadConfig({
    SERVICE_URL: emulator.url,
    SERVICE_API_TOKEN: emulator.token,
    NODE_API_TOKEN: emulator.nodeApiToken,
    DATABASE_PATH: join(dir, 'bot.db'),
    ...(opts.gateway === false ? {} : { DISCORD_TOKEN: BOT_TOKEN }),
    DISCORD_APPLICATION_ID: fake.applicationId,
    DISCORD_PUBLIC_KEY: signer.publicKeyHex,
    DISCORD_API_URL: fake.apiUrl,
    ...(opts.guildId ? { DISCORD_GUILD_ID: opts.guildId } : {}),
    LOG_LEVEL: 'silent',
  });
  const db = openDatabase(config.DATABASE_PATH);
  const hosting = createHostingClient({ baseUrl: emulator.url, token: emulator.token, timeoutMs: 10_000 });
  const credentialsFor = loadNodeCredentials({ defaultToken: emulator.nodeApiToken });
  const services = {
    hosting,
    nodeApi: (node: HostedNode) => {
      if (!node.invoke_url) throw new Error(`node ${node.name} has no invoke_url yet`);
      return createNodeApiClient({ baseUrl: node.invoke_url, credentials: credentialsFor(node) });
    },
  };
  const registry = createRegistry(allCommands);
  const metrics = createMetrics({ defaults: false });
  const dispatcher = testDispatcher({
    db,
    registry,
    services,
    admins: opts.admins ?? [],
    operators: opts.operators ?? [],
    logger: silentLogger,
    metrics,
    nodeCacheMs: 0,
    ...(opts.approvalPolicy ? { approvalPolicy: opts.approvalPolicy } : {}),
    ...(opts.spendLimits ? { spendLimits: opts.spendLimits } : {}),
    ...(opts.now ? { now: opts.now } : {}),
  });
  const deferAfter = { ms: 2_500 };
  const adapter = createDiscordAdapter({ config, dispatcher, registry, logger: silentLogger, metrics, deferAfterMs: () => deferAfter.ms });
  const http = await createHttpServer({ logger: silentLogger, metrics, routes: adapter.routes ? [adapter.routes] : [] });
  const url = await http.listen({ port: 0, host: '127.0.0.1' });
  await adapter.start();
  return {
    fake,
    emulator,
    signer,
    adapter,
    dispatcher,
    registry,
    db,
    http,
    url,
    deferAfter,
    async close() {
      await adapter.stop();
      await http.close();
      void db.close();
      await emulator.close();
      await fake.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
