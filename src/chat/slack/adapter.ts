/**
 * The Slack adapter: a Bolt app whose listeners only translate. A slash command, a click or a
 * modal submit is acknowledged first, then handed to the dispatcher, and the Reply goes back
 * through response_url (respond), views.open or the Web API.
 *
 * Socket Mode when SLACK_APP_TOKEN is set; otherwise HTTP mode on the bot's fastify server at
 * POST /slack/events (see ./fastify-receiver.ts).
 *
 * Role checks by Slack user group: actor.groups comes from one cached `usergroups.list` call
 * (./create-group-resolver.ts); without the usergroups:read scope it is empty.
 *
 * This file holds the start-up (receiver, Bolt app, link, App Home); the listeners are in
 * ./listeners.ts and the way a Reply is sent in ./reply-delivery.ts.
 */
import { App as BoltAppClass, SocketModeReceiver, type App as BoltApp, type Receiver } from '@slack/bolt';
import type { FastifyPluginAsync } from 'fastify';
import type { Config } from '../../config.js';
import type { Actor, ChatPoster, LinkStatus, Role } from '../../vocabulary/index.js';
import type { Dispatcher } from '../../engine/index.js';
import type { Logger } from '../../log.js';
import type { Metrics } from '../../metrics.js';
import type { ReplayGuard } from '../../http/index.js';
import { slackLink } from './slack-link.js';
import { createSlackPoster } from './create-slack-poster.js';
import { FastifyReceiver } from './fastify-receiver.js';
import { createGroupResolver } from './create-group-resolver.js';
import { toBoltLogger } from './to-bolt-logger.js';
import { createAppHome } from './app-home.js';
import { registerListeners } from './listeners.js';
import { createReplyDelivery } from './reply-delivery.js';

export interface SlackAdapter {
  app: BoltApp;
  poster: ChatPoster;
  /** HTTP mode: `POST /slack/events`, to register on the bot's one fastify server. */
  routes?: FastifyPluginAsync;
  /** Checks the token and connects (Socket Mode); Slack unreachable leaves the link retrying, a refused token throws. */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Where the connection to Slack is, for /healthz. */
  link(): LinkStatus;
  /** Publishes the App Home tab again for the users who opened it lately (throttled per user). */
  refreshHome(): void;
}

export interface SlackAdapterOptions {
  config: Config;
  dispatcher: Dispatcher;
  logger: Logger;
  metrics?: Metrics;
  /** Node names for the external select; default dispatcher.suggestNodes. */
  nodeNames?: (prefix: string) => Promise<Array<{ name: string; nodeId: string; status: string }>>;
  /** The slash command (default `/rln`). */
  command?: string;
  /**
   * Socket Mode: how long to wait for a pong, and the step of the reconnect delay after Slack asks
   * the client to reconnect (Bolt's default 5000 ms).
   */
  socketPingTimeoutMs?: number;
  /** Resolve users' Slack user groups for `slack-group:` grants (default true; needs usergroups:read). */
  userGroups?: boolean;
  /** How long a modal submit waits for the dispatcher before acking and answering later (default SLACK_LISTENER_BUDGET_MS, 2000 ms). */
  viewSubmissionBudgetMs?: number;
  /** How long an external select waits for node names before answering with none (default 2000 ms, below the receiver's 2.5 s fallback; Slack allows 3 s). */
  suggestionBudgetMs?: number;
  /** HTTP mode: signed requests already accepted (one backed by the database survives a restart). */
  replays?: ReplayGuard;
  /** The user's role, shown on the App Home tab. */
  roleOf?: (actor: Actor) => Promise<Role>;
  /** At most one App Home publish per user this often (default 5 s). */
  homeThrottleMs?: number;
}

export { readViewValues, SLACK_SUGGESTION_BUDGET_MS, SLACK_VIEW_SUBMISSION_BUDGET_MS } from './listeners.js';

/** Explicit, short retries for the app's own calls (views.open, postEphemeral, respond is separate). */
export const SLACK_RETRY_CONFIG = { retries: 2, factor: 2, minTimeout: 100, maxTimeout: 1000 };

export function createSlackAdapter(opts: SlackAdapterOptions): SlackAdapter {
  const { config, dispatcher } = opts;
  const log = opts.logger;
  const token = config.SLACK_BOT_TOKEN;
  if (!token) throw new Error('SLACK_BOT_TOKEN is required for the Slack adapter');
  const boltLogger = toBoltLogger(log);
  const slackApiUrl = config.SLACK_API_URL ? config.SLACK_API_URL.replace(/\/?$/, '/') : undefined;
  // Fresh objects each: Bolt and the socket-mode client write into the clientOptions they get.
  const clientOptions = () => ({ slackApiUrl, retryConfig: { ...SLACK_RETRY_CONFIG }, timeout: 10_000 });

  let receiver: Receiver;
  let fastifyReceiver: FastifyReceiver | undefined;
  let socketReceiver: SocketModeReceiver | undefined;
  if (config.SLACK_APP_TOKEN) {
    receiver = socketReceiver = new SocketModeReceiver({
      appToken: config.SLACK_APP_TOKEN,
      logger: boltLogger,
      clientPingTimeout: opts.socketPingTimeoutMs,
      // The link reconnects (./slack-link.ts): the client's own reconnect has no bound on its delay,
      // and its failures would end the process.
      autoReconnectEnabled: false,
      installerOptions: { clientOptions: clientOptions() },
    });
  } else if (config.SLACK_SIGNING_SECRET) {
    fastifyReceiver = new FastifyReceiver({ signingSecret: config.SLACK_SIGNING_SECRET, logger: log, replays: opts.replays });
    receiver = fastifyReceiver;
  } else {
    throw new Error('Slack needs SLACK_APP_TOKEN (Socket Mode) or SLACK_SIGNING_SECRET (HTTP mode)');
  }

  // deferInitialization: otherwise Bolt calls auth.test in its constructor and a refused token
  // becomes an unhandled rejection; start() runs app.init() and reports a clear reason instead.
  const app = new BoltAppClass({ token, receiver, logger: boltLogger, clientOptions: clientOptions(), deferInitialization: true });
  app.error(async (e) => {
    log.error({ err: e }, 'Slack listener error');
  });
  const groupResolver = opts.userGroups === false ? undefined : createGroupResolver({ client: app.client, logger: log });
  const groupsOf = async (userId: string) => (groupResolver ? groupResolver.groupsOf(userId) : []);
  const nodeNames = opts.nodeNames ?? ((prefix: string) => dispatcher.suggestNodes(prefix));

  const poster = createSlackPoster({ token, slackApiUrl, logger: log });
  registerListeners({
    app,
    log,
    delivery: createReplyDelivery({ app, dispatcher, log, poster }),
    groupsOf,
    nodeNames,
    command: opts.command,
    viewSubmissionBudgetMs: opts.viewSubmissionBudgetMs,
    suggestionBudgetMs: opts.suggestionBudgetMs,
  });
  const link = slackLink({
    app,
    mode: config.slack.mode === 'socket' ? 'socket' : 'http',
    receiver: socketReceiver,
    apiUrlSet: Boolean(config.SLACK_API_URL),
    log,
  });
  const home = createAppHome({ app, dispatcher, logger: log, groupsOf, roleOf: opts.roleOf, throttleMs: opts.homeThrottleMs });

  return {
    app,
    poster,
    routes: fastifyReceiver?.routes,
    start: () => link.start(),
    link: () => link.status(),
    refreshHome: () => home.refreshAll(),
    async stop() {
      home.stop();
      await link.stop();
      if (!socketReceiver) await app.stop();
    },
  };
}
