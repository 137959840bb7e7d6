/**
 * The whole bot against the emulator on loopback, for end-to-end tests: the real
 * composition root (src/app/create-app.ts) with a fresh SQLite file, the emulator as the service,
 * and whatever chat platform the given env configures (pointed at the test fakes).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.js';
import { createApp, type App, type AppOptions } from '../../src/app/create-app.js';
import { startEmulator, type Emulator, type EmulatorOptions } from '../../src/emulator/index.js';
import { createLogger, type Logger } from '../../src/log.js';
import { createMetrics } from '../../src/metrics.js';

export interface HarnessOptions {
  /** Extra environment (ADMIN_USERS, SLACK_*, DISCORD_*, …). */
  env?: Record<string, string>;
  emulator?: EmulatorOptions;
  /** Run the terminal adapter on these streams. Default: no terminal. */
  shell?: AppOptions['shell'];
  logger?: Logger;
  /** Collect Node's process metrics too (off by default: they cost a little in every test). */
  processMetrics?: boolean;
  /** The bot's clock (default: the real one); a test moves it to reach an expiry without waiting. */
  now?: () => number;
  /** The outbox's pacing per channel (default one post a second, as Slack wants): shorter where a test posts several times to one channel. */
  pacing?: AppOptions['pacing'];
}

export interface Harness {
  app: App;
  emulator: Emulator;
  /** The bot's HTTP base URL. */
  url: string;
  dbPath: string;
  /** Stops the bot (not the emulator) and starts a new one on the same database: a restart. */
  restart(opts?: { graceful?: boolean }): Promise<App>;
  close(): Promise<void>;
}

export async function startHarness(opts: HarnessOptions = {}): Promise<Harness> {
  const emulator = await startEmulator({ lifecycleDelayMs: 30, ...opts.emulator });
  const dir = mkdtempSync(join(tmpdir(), 'rln-harness-'));
  const dbPath = join(dir, 'bot.db');
  const config = loadConfig({
    SERVICE_URL: emulator.url,
    SERVICE_API_TOKEN: emulator.token,
    NODE_API_TOKEN: emulator.nodeApiToken,
    DATABASE_PATH: dbPath,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    // Tests of other behaviour run without a second person; approval tests set their own policy.
    APPROVAL_POLICY: 'none',
    ...opts.env,
  });
  const boot = async () => {
    const app = await createApp({
      config,
      logger: opts.logger ?? createLogger({ level: 'silent' }),
      metrics: createMetrics({ defaults: opts.processMetrics ?? false }),
      shell: opts.shell ?? false,
      ...(opts.now ? { now: opts.now } : {}),
      ...(opts.pacing ? { pacing: opts.pacing } : {}),
    });
    const { url } = await app.start();
    return { app, url };
  };
  let { app, url } = await boot();
  const harness: Harness = {
    get app() {
      return app;
    },
    emulator,
    get url() {
      return url;
    },
    dbPath,
    async restart({ graceful = true } = {}) {
      if (graceful) await app.stop({ timeoutMs: 2_000 });
      else await app.stop({ timeoutMs: 1 });
      ({ app, url } = await boot());
      return app;
    },
    async close() {
      await app.stop({ timeoutMs: 2_000 }).catch(() => undefined);
      await emulator.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return harness;
}
