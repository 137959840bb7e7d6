/**
 * The composition root: the one place where the rooms are put together.
 * Store → service clients (or the in-process emulator for the demo) → access and the engine's services (roles,
 * audit, button ids, confirmations) → notifier (webhooks, outbox) and reports → one services object,
 * complete at construction → dispatcher → chat adapters → one HTTP server.
 * This file holds the order and the app's start and stop; the service clients are made in
 * service-wiring.ts, the activity poller in activity-wiring.ts, the chat adapters in platform-wiring.ts.
 */
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import { ConfigError, secretValues, type Config } from '../config.js';
import { createLogger, registerSecret, type Logger } from '../log.js';
import { createMetrics, type Metrics } from '../metrics.js';
import { createLeases, openStoreDatabase, type Db } from '../store/index.js';
import { cachedCheck, createHttpServer } from '../http/index.js';
import type { Emulator } from '../emulator/index.js';
import { createAuditLog, policyConfigProblems, createRoleService, createPolicy } from '../access/index.js';
import {
  createButtonIds,
  createConfirmations,
  createDispatcher,
  createRegistry,
  approvalActionChecker,
  type Dispatcher,
  type Registry,
} from '../engine/index.js';
import { UserError, within, type ChatPoster, type Platform } from '../vocabulary/index.js';
import type { Services } from '../../commands/index.js';
import { allCommands } from '../../commands/index.js';
import { createNotifier, type NotifierOptions } from '../notify/index.js';
import { createReports } from '../reports/index.js';
import { createCallScheduler } from '../node-api/index.js';
import type { ActivityPoller, UpgradeFollower } from '../activity/index.js';
import { wireDemo } from '../demo/index.js';
import { progressReporter } from './progress-reporter.js';
import { platformChecks } from './platform-checks.js';
import { wireService } from './service-wiring.js';
import { wireActivity } from './activity-wiring.js';
import { wirePlatforms, type ShellStreams } from './platform-wiring.js';
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';

export { DEMO_PASSWORD } from './service-wiring.js';

/** This process among the replicas sharing a database: the owner of the leases it takes. */
const replicaId = `${hostname()}/${process.pid}/${randomUUID().slice(0, 8)}`;

export interface AppOptions {
  config: Config;
  logger?: Logger;
  metrics?: Metrics;
  /** The terminal adapter's streams. Default: stdin/stdout when no Slack and no Discord is configured. */
  shell?: ShellStreams | false;
  /** Demo only: options for the in-process emulator. */
  emulator?: { lifecycleDelayMs?: number };
  /** The one clock (ms since the epoch) every room shares. Default Date.now. */
  now?: () => number;
  /** Tests only: the outbox's pacing per channel (default Slack's one message a second), so a test does not wait on it. */
  pacing?: NotifierOptions['pacing'];
}

export interface App {
  config: Config;
  logger: Logger;
  metrics: Metrics;
  db: Db;
  registry: Registry;
  dispatcher: Dispatcher;
  services: Services;
  http: FastifyInstance;
  emulator?: Emulator;
  /** The node activity poller (payments, channels, transfers, deposits, liquidity, locked nodes). */
  activity: ActivityPoller;
  /** Resolves when the terminal adapter's input ends (demo), never otherwise. */
  shellDone?: Promise<void>;
  /**
   * Listens and starts the workers; resolves with the HTTP base URL. `onListening` runs once the
   * server listens and before the chat adapters start (the demo prints its banner there, so it
   * comes before the terminal's first prompt).
   */
  start(opts?: { onListening?: (url: string) => void }): Promise<{ url: string }>;
  /** Stops accepting webhooks, drains in-flight work, closes chat connections and the database. */
  stop(opts?: { timeoutMs?: number }): Promise<void>;
}

export async function createApp(opts: AppOptions): Promise<App> {
  const config = opts.config;
  const logger = opts.logger ?? createLogger({ level: config.LOG_LEVEL });
  const metrics = opts.metrics ?? createMetrics();
  /** The one clock every room shares. */
  const clock = opts.now ?? Date.now;
  // The policies' syntax is access's to read: a mistake there is a configuration problem, told before anything opens.
  const policyProblems = policyConfigProblems(config);
  if (policyProblems.length) throw new ConfigError(policyProblems);
  for (const value of secretValues(config)) registerSecret(value);

  // SQLite at DATABASE_PATH, or PostgreSQL (migrated under a lock) when DATABASE_URL is set.
  const db = await openStoreDatabase({
    url: config.DATABASE_URL,
    path: config.DATABASE_PATH,
    onError: (err) => logger.warn({ err }, 'a database connection failed; the pool replaces it'),
  });
  /** Who does what across replicas on one database (channels, ticks, nodes, the Discord gateway). */
  const leases = createLeases(db);

  // The service (the real one, or the emulator with demo nodes), its client and the node API clients.
  const { emulator, hosting, nodeApi, credentials, demoIndexer, ownBases, allowPrivate } = await wireService({
    config,
    db,
    logger,
    metrics,
    now: clock,
    emulator: opts.emulator,
  });

  const registry = createRegistry(allCommands, { roleOverrides: { audit: config.AUDIT_READ_ROLE } });
  const coreLogger = logger.child({ room: 'core' });
  const access = createRoleService(db, {
    admins: config.ADMIN_USERS,
    operators: config.OPERATOR_USERS,
    readers: config.READ_USERS,
    now: clock,
  });
  const audit = createAuditLog(db, { now: clock, retentionDays: config.AUDIT_RETENTION_DAYS, logger: coreLogger });
  const policy = (() => {
    try {
      return createPolicy({
        db,
        now: clock,
        access,
        approvalPolicy: config.APPROVAL_POLICY,
        spendLimits: config.SPEND_LIMITS,
        tz: config.LIMITS_TZ,
        checkAction: approvalActionChecker(registry),
      });
    } catch (e) {
      // A rule naming a command that cannot be put under approval: a configuration problem.
      if (e instanceof UserError) throw new ConfigError([`APPROVAL_POLICY: ${e.message}${e.hint ? ` ${e.hint}` : ''}`]);
      throw e;
    }
  })();
  // Button ids are shared by the dispatcher (replies) and the notifier (posted notifications).
  const buttons = createButtonIds({ db, now: clock, logger: coreLogger });
  const confirmations = createConfirmations({ db, now: clock, logger: coreLogger });

  /** Told of watched nodes' status events once the notifier exists (it is made just below). */
  const upgrades: { follower?: UpgradeFollower } = {};
  // Chat posters are filled in as the adapters come up; the notifier reads them at post time.
  const posters: Partial<Record<Platform, ChatPoster>> = {};
  // Told when a watched node changes; the Slack adapter refreshes the App Home tabs open on it.
  const nodeChanged: Array<() => void> = [];
  const notifier = createNotifier({
    onNodeEvent: (e) => {
      nodeChanged.forEach((f) => f());
      // A node back from an upgrade: the follower tells it, locked, with its Unlock button.
      upgrades.follower?.statusSeen(e.nodeId, e.status);
    },
    db,
    replicaId,
    posters,
    buttons,
    hosting,
    // The notifier binds room=notify itself (and room=webhooks for its routes).
    logger,
    metrics,
    now: clock,
    publicUrl: config.PUBLIC_URL,
    admins: config.ADMIN_USERS,
    pacing: opts.pacing,
    maxFutureSkewMs: config.MAX_FUTURE_SKEW_S * 1000,
    paging: {
      pagerduty: { url: config.PAGERDUTY_EVENTS_URL, routingKey: config.PAGERDUTY_ROUTING_KEY },
      webhook: config.ESCALATION_WEBHOOK_URL ? { url: config.ESCALATION_WEBHOOK_URL, secret: config.ESCALATION_WEBHOOK_SECRET } : undefined,
      escalateAfterMin: config.ESCALATE_AFTER_MIN,
      allowPrivate,
    },
  });
  // One scheduler of node work for the whole process: reports, the dashboard, the commands that ask
  // many nodes, and the upgrade follower's reads.
  const nodeCalls = createCallScheduler({ maxConcurrency: config.NODE_CALLS_MAX, perNodeMax: config.NODE_CALLS_PER_NODE });
  const { activity, upgradeFollower } = wireActivity({
    calls: nodeCalls,
    config,
    db,
    leases,
    replicaId,
    hosting,
    nodeApi,
    notifier,
    audit,
    logger,
    metrics,
    now: clock,
  });
  upgrades.follower = upgradeFollower;
  const reports = createReports({
    db,
    calls: nodeCalls,
    services: { hosting, nodeApi },
    outbox: notifier.outbox,
    logger: logger.child({ room: 'reports' }),
    metrics,
    thresholds: { low: config.REPORT_LOW_SHARE, high: config.REPORT_HIGH_SHARE },
    now: clock,
    snapshotRetentionDays: config.SNAPSHOT_RETENTION_DAYS,
    replicaId,
    reloadEveryMs: config.REPORT_RELOAD_S * 1_000,
  });
  const services: Services = {
    hosting,
    nodeApi,
    nodeCerts: credentials.certs,
    publicUrl: config.PUBLIC_URL,
    unlockIndexerUrl: config.UNLOCK_INDEXER_URL ?? demoIndexer,
    logDownloadMaxBytes: config.LOG_DOWNLOAD_MAX_BYTES,
    now: clock,
    access,
    audit,
    commands: registry,
    watches: notifier.watches,
    reports: reports.service,
    nodeCalls,
    // Reads the posters when a command reports progress, by which time the adapters are up.
    progress: progressReporter(posters, logger),
    policy,
  };
  const dispatcher = createDispatcher({
    registry,
    services,
    buttons,
    confirmations,
    logger: coreLogger,
    metrics,
    callDeadlineMs: config.NODE_CALL_DEADLINE_S * 1000,
  });

  const routes: FastifyPluginAsync[] = [
    notifier.webhookRoutes({ signatureHeader: config.WEBHOOK_SIGNATURE_HEADER, bodyLimit: config.WEBHOOK_BODY_LIMIT }),
  ];
  // The chat adapters: each made only when configured; they fill in the posters and add their routes.
  const { starters, stoppers, links, shellDone } = await wirePlatforms({
    config,
    shell: opts.shell,
    db,
    leases,
    replicaId,
    now: clock,
    dispatcher,
    registry,
    services,
    logger,
    metrics,
    emulator,
    activity,
    posters,
    nodeChanged,
    routes,
  });

  let draining = false;
  // Not ready while the database does not answer, so a load balancer drains this replica; the
  // answer is cached for a second, so its probes do not each reach the database.
  const databaseAnswers = cachedCheck(() => db.ping(), { ttlMs: 1_000, timeoutMs: 2_000 });
  const http = await createHttpServer({
    logger,
    metrics,
    routes,
    health: async () => {
      const database = !db.open ? 'closed' : (await databaseAnswers()) ? 'ok' : 'unreachable';
      const platforms = platformChecks(links);
      return {
        ok: !draining && database === 'ok',
        checks: { database, draining: draining ? 'yes' : 'no', mode: config.demo ? 'demo' : 'service', ...platforms.checks },
        degraded: platforms.degraded,
      };
    },
  });

  let started = false;
  return {
    config,
    logger,
    metrics,
    db,
    registry,
    dispatcher,
    services,
    http,
    emulator,
    activity,
    shellDone,
    async start(startOpts = {}) {
      const address = await http.listen({ port: config.PORT, host: config.HOST });
      const url = address.replace('0.0.0.0', '127.0.0.1').replace('[::]', '127.0.0.1');
      ownBases.push(url.replace(/\/+$/, ''));
      notifier.start();
      await reports.scheduler.start();
      activity.start();
      if (emulator) {
        // A node created in the demo sends its status changes to this bot too, as the seeded ones do.
        services.publicUrl ??= url;
        await wireDemo(hosting, url, notifier.watches, logger);
      }
      startOpts.onListening?.(url);
      for (const s of starters) await s();
      started = true;
      logger.info({ url, demo: config.demo, slack: config.slack.mode, discord: config.discord.mode }, 'rln-chatops is ready');
      return { url };
    },
    async stop(stopOpts = {}) {
      const deadline = Date.now() + (stopOpts.timeoutMs ?? 8_000);
      draining = true;
      const left = () => Math.max(100, deadline - Date.now());
      // Stop accepting webhooks and commands first; then drain what was accepted.
      await within(http.close(), left()).catch(() => undefined);
      reports.scheduler.stop();
      await within(activity.stop(), left()).catch(() => undefined);
      upgradeFollower.stop();
      // Post what is due while there is time; whatever is left stays in the outbox for the next start.
      await notifier.drain(Math.max(0, Math.min(3_000, left() - 2_000)));
      await within(notifier.stop(), left()).catch(() => undefined);
      for (const s of stoppers) await within(s(), left()).catch(() => undefined);
      if (emulator) await within(emulator.close(), left()).catch(() => undefined);
      if (db.open) await db.close();
      if (started) logger.info('rln-chatops stopped');
    },
  };
}
