/**
 * The composition root: the one place where the rooms are put together.
 * Store → service clients (or the in-process emulator for the demo) → access and the engine's services (roles,
 * audit, button ids, confirmations) → notifier (webhooks, outbox) and reports → one services object,
 * complete at construction → dispatcher → chat adapters → one HTTP server.
 */
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import { ConfigError, secretValues, type Config } from '../config.js';
import { createLogger, registerSecret, type Logger } from '../log.js';
import { createMetrics, type Metrics } from '../metrics.js';
import { createLeases, createReplayStore, openStoreDatabase, type Db } from '../store/index.js';
import { cachedCheck, createHttpServer, createReplayGuard } from '../http/index.js';
import { createHostingClient, type HostedNode } from '../hosting/index.js';
import { ApiShapes, checkNodeApiUrl, createNodeApiClient, imageOfNode } from '../node-api/index.js';
import { nodeCredentialSources } from './node-credentials.js';
import type { Emulator } from '../emulator/index.js';
import { createAuditLog, policyConfigProblems, createRoleService, createPolicy } from '../access/index.js';
import {
  createButtonIds,
  createConfirmations,
  createDispatcher,
  createRegistry,
  approvalActionChecker,
  type Registry,
} from '../engine/index.js';
import { createLeader } from '../store/index.js';
import { UserError } from '../vocabulary/index.js';
import type { ChatPoster } from '../vocabulary/index.js';
import { within } from '../vocabulary/index.js';
import type { Dispatcher } from '../engine/index.js';
import type { LinkStatus, Platform } from '../vocabulary/index.js';
import type { Services } from '../../commands/index.js';
import { allCommands } from '../../commands/index.js';
import { createNotifier } from '../notify/index.js';
import { createReports } from '../reports/index.js';
import {
  createActivityPoller,
  activityItems,
  createUpgradeFollower,
  type ActivityPoller,
  type UpgradeFollower,
} from '../activity/index.js';
import { createActivityStateRepo } from '../store/index.js';
import { createShellAdapter } from '../chat/shell/index.js';
import { demoFaults } from '../demo/index.js';
import { checkUrlTarget, parseAllowList } from '../vocabulary/index.js';
import { progressReporter } from './progress-reporter.js';
import { platformChecks } from './platform-checks.js';
import { accountThresholds, backupFacts, watchProfiles } from './watch-profiles.js';
import { wireDemo } from '../demo/index.js';
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';

/** This process among the replicas sharing a database: the owner of the leases it takes. */
const replicaId = `${hostname()}/${process.pid}/${randomUUID().slice(0, 8)}`;

/** The demo nodes' wallet password: a documented demo value, not a secret of anyone's. */
export const DEMO_PASSWORD = 'demo-password';

export interface AppOptions {
  config: Config;
  logger?: Logger;
  metrics?: Metrics;
  /** The terminal adapter's streams. Default: stdin/stdout when no Slack and no Discord is configured. */
  shell?: { input: NodeJS.ReadableStream; output: NodeJS.WritableStream; prompt?: boolean } | false;
  /** Demo only: options for the in-process emulator. */
  emulator?: { lifecycleDelayMs?: number };
  /** The one clock (ms since the epoch) every room shares. Default Date.now. */
  now?: () => number;
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

  // The service: the real one, or (no SERVICE_URL) the built-in emulator with demo nodes.
  let emulator: Emulator | undefined;
  let serviceUrl = config.SERVICE_URL;
  let serviceToken = config.SERVICE_API_TOKEN;
  let nodeToken = config.NODE_API_TOKEN;
  /** The emulator's indexer, which `node unlock` offers on the demo's 6887cbf nodes. */
  let demoIndexer: string | undefined;
  if (config.demo) {
    // Loaded only for the demo: a bot with a SERVICE_URL never loads the emulator.
    const { startEmulator, DEFAULT_INDEXER } = await import('../emulator/index.js');
    demoIndexer = DEFAULT_INDEXER;
    // alice and bob come initialised and unlocked; a block is mined every second.
    emulator = await startEmulator({
      seed: 'demo',
      demoPassword: DEMO_PASSWORD,
      autoMineMs: 1000,
      lifecycleDelayMs: opts.emulator?.lifecycleDelayMs ?? 1500,
    });
    serviceUrl = emulator.url;
    serviceToken = emulator.token;
    nodeToken = emulator.nodeApiToken;
    registerSecret(serviceToken);
    registerSecret(nodeToken);
  }
  const allowPrivate = parseAllowList(config.ALLOW_PRIVATE_URLS);
  // The bot's own webhook URL (under PUBLIC_URL, or the address it listens on) is the admin's to
  // set; any other is refused when it names or resolves to an inside address (ALLOW_PRIVATE_URLS).
  const ownBases = config.PUBLIC_URL ? [config.PUBLIC_URL.replace(/\/+$/, '')] : [];
  const checkWebhookTarget = async (url: string) =>
    ownBases.some((b) => url === b || url.startsWith(`${b}/`)) ? undefined : checkUrlTarget(url, allowPrivate, { what: 'the webhook URL' });
  const hosting = createHostingClient({
    baseUrl: serviceUrl!,
    token: serviceToken!,
    timeoutMs: config.SERVICE_TIMEOUT_MS,
    maxBytes: config.SERVICE_MAX_BYTES,
    checkWebhookTarget,
    onCall: ({ endpoint, outcome }) => metrics.serviceCalls.inc({ endpoint, outcome }),
  });
  const credentials = nodeCredentialSources({ config, db, hosting, nodeToken, now: clock, logger: logger.child({ room: 'core' }) });
  // Which API generation each node speaks, per changed endpoint: learnt once, shared by every client of
  // the node, forgotten when its image changes or it answers locked (src/node-api/generations.ts).
  const apiShapes = new ApiShapes();
  const nodeApi = (node: HostedNode) => {
    if (!node.invoke_url) {
      throw new UserError('node_error', `${node.name} has no API address yet.`, `Wait until it is RUNNING (\`node info ${node.name}\`).`);
    }
    const refused = checkNodeApiUrl(node.invoke_url);
    if (refused) {
      throw new UserError(
        'node_error',
        `Not calling ${node.name}: ${refused}.`,
        'Ask the service for an HTTPS node address; nothing was sent.',
      );
    }
    const image = imageOfNode(node);
    return createNodeApiClient({
      baseUrl: node.invoke_url,
      credentials: credentials.credentialsFor(node),
      nodeName: node.name,
      maxBytes: config.NODE_API_MAX_BYTES,
      shapes: apiShapes.of(node.nodeId, image),
      image,
    });
  };

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
    maxFutureSkewMs: config.MAX_FUTURE_SKEW_S * 1000,
    paging: {
      pagerduty: { url: config.PAGERDUTY_EVENTS_URL, routingKey: config.PAGERDUTY_ROUTING_KEY },
      webhook: config.ESCALATION_WEBHOOK_URL ? { url: config.ESCALATION_WEBHOOK_URL, secret: config.ESCALATION_WEBHOOK_SECRET } : undefined,
      escalateAfterMin: config.ESCALATE_AFTER_MIN,
      allowPrivate,
    },
  });
  const upgradeFollower = createUpgradeFollower({
    getNode: (id) => hosting.getNode(id),
    nodeinfo: (node) => nodeApi(node).nodeinfo(),
    publish: async (entries) => {
      await notifier.ingestActivityBatch(entries.map((e) => ({ node: { nodeId: e.node.nodeId, nodeName: e.node.name }, items: e.items })));
    },
    now: clock,
    logger: logger.child({ room: 'activity' }),
    batchMs: config.UPGRADE_BATCH_MS,
  });
  upgrades.follower = upgradeFollower;
  // Node activity: watched nodes' APIs polled every POLL_INTERVAL_S; what changed is queued through
  // the notifier's outbox (stored before the new state: see create-activity-poller.ts).
  // One node API client per node and address, reused across polls (500 nodes every 30 s).
  const activityClients = new Map<string, ReturnType<typeof nodeApi>>();
  const activity = createActivityPoller({
    listNodes: () => hosting.listNodes(),
    isWatched: (node) => notifier.watches.hearsActivity(node.nodeId),
    profile: watchProfiles(notifier.watches, accountThresholds(config)),
    facts: backupFacts(audit),
    api: (node) => {
      const key = `${node.nodeId}|${node.invoke_url}`;
      let client = activityClients.get(key);
      if (!client) {
        if (activityClients.size > 5_000) activityClients.clear();
        activityClients.set(key, (client = nodeApi(node)));
      }
      return client;
    },
    states: createActivityStateRepo(db),
    // Replicas on one database split the nodes (a lease per node and interval); one process takes them all.
    claim: db.engine === 'postgres' ? (nodeId, until, now) => leases.claim(`activity:${nodeId}`, replicaId, until, now) : undefined,
    publish: async (node, events, context) => {
      // A node locked by its upgrade is told by the follower ("upgraded … and is LOCKED"), not twice.
      if (upgradeFollower.explainsLock(node)) events = events.filter((e) => !(e.kind === 'lock' && e.type !== 'node_unlocked'));
      if (!events.length) return;
      await notifier.ingestActivity(
        { nodeId: node.nodeId, nodeName: node.name },
        activityItems({ nodeId: node.nodeId, name: node.name }, events, context),
      );
    },
    now: clock,
    logger: logger.child({ room: 'activity' }),
    metrics,
    intervalMs: config.POLL_INTERVAL_S * 1000,
    nodeTimeoutMs: Math.min(10_000, Math.max(1_000, config.POLL_INTERVAL_S * 1000)),
    thresholds: {
      lowShare: config.REPORT_LOW_SHARE,
      highShare: config.REPORT_HIGH_SHARE,
      hysteresis: 0.05,
      inboundFloorSat: config.INBOUND_FLOOR_SAT,
      outboundFloorSat: config.OUTBOUND_FLOOR_SAT,
    },
  });
  const reports = createReports({
    db,
    services: { hosting, nodeApi },
    outbox: notifier.outbox,
    logger: logger.child({ room: 'reports' }),
    metrics,
    thresholds: { low: config.REPORT_LOW_SHARE, high: config.REPORT_HIGH_SHARE },
    now: clock,
    snapshotRetentionDays: config.SNAPSHOT_RETENTION_DAYS,
    replicaId,
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
  const stoppers: Array<() => Promise<void>> = [];
  const starters: Array<() => Promise<void>> = [];
  /** Each chat platform's connection, for /healthz (undefined: nothing to hold, as in HTTP interactions only). */
  const links: Partial<Record<Platform, () => LinkStatus | undefined>> = {};

  // Signed chat requests already accepted, kept in the database: a replay to a restarted bot is refused too.
  // Both platforms accept a signature for 5 minutes either side of its timestamp.
  const replayStore = createReplayStore(db);
  const replayGuard = (namespace: string) => createReplayGuard({ windowMs: 5 * 60_000, store: replayStore, namespace });

  // Bolt and discord.js are loaded only when configured: they are most of the bot's memory.
  if (config.slack.mode !== 'off') {
    const { createSlackAdapter } = await import('../chat/slack/index.js');
    const slack = createSlackAdapter({
      config,
      dispatcher,
      logger: logger.child({ room: 'slack' }),
      metrics,
      replays: replayGuard('slack'),
      roleOf: (actor) => services.access.roleOf(actor),
    });
    posters.slack = slack.poster;
    nodeChanged.push(() => slack.refreshHome());
    if (slack.routes) routes.push(slack.routes);
    starters.push(() => slack.start());
    links.slack = () => slack.link();
    stoppers.push(() => slack.stop());
  }
  if (config.discord.mode !== 'off') {
    const { createDiscordAdapter } = await import('../chat/discord/index.js');
    const discordLogger = logger.child({ room: 'discord' });
    // On PostgreSQL (several replicas) one replica at a time holds the gateway; on SQLite (one process) it simply does.
    const gatewayLeader =
      db.engine === 'postgres'
        ? (gateway: { onLead: () => Promise<void>; onLose: () => Promise<void> }) =>
            createLeader({ leases, name: 'discord-gateway', owner: replicaId, now: clock, log: discordLogger, ...gateway })
        : undefined;
    const discord = createDiscordAdapter({
      config,
      dispatcher,
      registry,
      logger: discordLogger,
      metrics,
      replays: replayGuard('discord'),
      gatewayLeader,
    });
    posters.discord = discord.poster;
    if (discord.routes) routes.push(discord.routes);
    starters.push(() => discord.start());
    links.discord = () => discord.gateway();
    stoppers.push(() => discord.stop());
  }
  let shellDone: Promise<void> | undefined;
  const wantShell = opts.shell !== false && (opts.shell !== undefined || (config.slack.mode === 'off' && config.discord.mode === 'off'));
  if (wantShell) {
    const io = opts.shell || { input: process.stdin, output: process.stdout, prompt: Boolean(process.stdin.isTTY) };
    const shell = createShellAdapter({
      dispatcher,
      input: io.input,
      output: io.output,
      prompt: io.prompt,
      roles: dispatcher.roles,
      demo: emulator ? demoFaults(emulator, (nodeId) => activity.checkSoon(nodeId)) : undefined,
    });
    posters.shell = shell.poster;
    shellDone = shell.done;
    starters.push(() => shell.start());
    stoppers.push(async () => shell.stop());
  }

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
