/**
 * The chat side of the composition root: the Slack, Discord and terminal adapters, each made only
 * when configured, with their posters for the notifier, their routes, and how each starts and stops.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics.js';
import { createLeader, createReplayStore, type Db, type Leases } from '../store/index.js';
import { createReplayGuard } from '../http/index.js';
import type { Emulator } from '../emulator/index.js';
import type { CoreDispatcher, Registry } from '../engine/index.js';
import type { ChatPoster, LinkStatus, Platform } from '../vocabulary/index.js';
import type { Services } from '../../commands/index.js';
import type { ActivityPoller } from '../activity/index.js';
import { createShellAdapter } from '../chat/shell/index.js';
import { demoFaults } from '../demo/index.js';

/** The terminal adapter's streams (AppOptions.shell). */
export type ShellStreams = { input: NodeJS.ReadableStream; output: NodeJS.WritableStream; prompt?: boolean };

export interface PlatformWiring {
  starters: Array<() => Promise<void>>;
  stoppers: Array<() => Promise<void>>;
  /** Each chat platform's connection, for /healthz (undefined: nothing to hold, as in HTTP interactions only). */
  links: Partial<Record<Platform, () => LinkStatus | undefined>>;
  /** Resolves when the terminal adapter's input ends (demo); undefined without a terminal. */
  shellDone?: Promise<void>;
}

export async function wirePlatforms(opts: {
  config: Config;
  shell: ShellStreams | false | undefined;
  db: Db;
  leases: Leases;
  replicaId: string;
  now: () => number;
  dispatcher: CoreDispatcher;
  registry: Registry;
  services: Services;
  logger: Logger;
  metrics: Metrics;
  emulator?: Emulator;
  activity: ActivityPoller;
  /** Filled in here: the notifier reads them at post time. */
  posters: Partial<Record<Platform, ChatPoster>>;
  /** Filled in here: told when a watched node changes. */
  nodeChanged: Array<() => void>;
  /** Added to here: the HTTP server's routes. */
  routes: FastifyPluginAsync[];
}): Promise<PlatformWiring> {
  const { config, db, leases, replicaId, dispatcher, registry, services, logger, metrics, emulator, posters, routes } = opts;
  const stoppers: Array<() => Promise<void>> = [];
  const starters: Array<() => Promise<void>> = [];
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
    opts.nodeChanged.push(() => slack.refreshHome());
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
            createLeader({ leases, name: 'discord-gateway', owner: replicaId, now: opts.now, log: discordLogger, ...gateway })
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
      demo: emulator ? demoFaults(emulator, (nodeId) => opts.activity.checkSoon(nodeId)) : undefined,
    });
    posters.shell = shell.poster;
    shellDone = shell.done;
    starters.push(() => shell.start());
    stoppers.push(async () => shell.stop());
  }
  return { starters, stoppers, links, shellDone };
}
