/**
 * The Discord adapter: the gateway (DISCORD_TOKEN) and/or HTTP interactions
 * (DISCORD_PUBLIC_KEY, a fastify plugin for the bot's one server), and the ChatPoster.
 */
import type { Client } from 'discord.js';
import type { FastifyPluginAsync } from 'fastify';
import type { Config } from '../../config.js';
import { keepConnected, type ChatPoster, type Link, type LinkStatus } from '../../vocabulary/index.js';
import type { Dispatcher } from '../../engine/index.js';
import type { Logger } from '../../log.js';
import type { Metrics } from '../../metrics.js';
import { buildCommandIndexAndData, type CommandIndex, type CommandRegistryLike } from './build-command-data.js';
import { createDiscordPoster, DISCORD_CALL_TIMEOUT_MS } from './create-discord-poster.js';
import { createDiscordRest } from './create-discord-rest.js';
import { GatewayRefused, startGateway } from './gateway.js';
import type { InteractionContext } from './handle-interaction.js';
import { discordInteractionRoutes } from './http-interactions.js';
import type { ReplayGuard } from '../../http/index.js';
import { DISCORD_DEFER_AFTER_MS } from './limits.js';
import { registerCommands } from './register-commands.js';

export interface DiscordAdapter {
  poster: ChatPoster;
  /** HTTP interactions (POST /discord/interactions), when DISCORD_PUBLIC_KEY is set. */
  routes?: FastifyPluginAsync;
  /**
   * Connects the gateway (when DISCORD_TOKEN is set) and registers /rln once Discord answers. An
   * unreachable Discord does not fail it: the gateway is retried with back-off (see `gateway()`);
   * only a refused token does.
   */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** The gateway's link (undefined without DISCORD_TOKEN, or on a replica that does not hold it). */
  gateway(): LinkStatus | undefined;
}

export interface DiscordAdapterOptions {
  config: Config;
  dispatcher: Dispatcher;
  registry: CommandRegistryLike;
  logger: Logger;
  metrics?: Metrics;
  /** Defer an answer not ready after this long (default 2.5 s; Discord allows 3 s). A function is read per interaction. */
  deferAfterMs?: number | (() => number);
  /** Register the /rln command at start-up (default true when DISCORD_TOKEN is set). */
  registerOnStart?: boolean;
  /** HTTP interactions: signed requests already accepted (one backed by the database survives a restart). */
  replays?: ReplayGuard;
  /**
   * Several replicas: Discord wants one gateway session per bot, so a replica connects only while
   * it leads (a lease in the shared database) and disconnects when it stops leading. Given the
   * gateway's connect and disconnect, returns what follows the lease (the store's createLeader).
   * Without it (one process) the gateway connects at start.
   */
  gatewayLeader?: (gateway: { onLead: () => Promise<void>; onLose: () => Promise<void> }) => {
    start(): Promise<void>;
    stop(): Promise<void>;
  };
}

export function createDiscordAdapter(opts: DiscordAdapterOptions): DiscordAdapter {
  const { config } = opts;
  // Already bound to `room: "discord"` by the composition root (as for Slack): binding it again doubles the key.
  const logger = opts.logger;
  const apiUrl = config.DISCORD_API_URL;
  let index: CommandIndex | undefined;
  const getIndex = () => (index ??= buildCommandIndexAndData(opts.registry).index);
  // A post given up on may still be made: the bot's calls wait for a slow answer (the poster logs it).
  const botRest = config.DISCORD_TOKEN
    ? createDiscordRest({ token: config.DISCORD_TOKEN, apiUrl, timeoutMs: DISCORD_CALL_TIMEOUT_MS })
    : undefined;
  const poster = createDiscordPoster(botRest, { logger });
  const ctx: InteractionContext = {
    dispatcher: opts.dispatcher,
    logger,
    deferAfterMs: opts.deferAfterMs ?? DISCORD_DEFER_AFTER_MS,
    // An answer's files (QR codes, charts, logs) go into the channel as an attachment, as a report's do.
    postFiles: botRest
      ? async (place, files) => void (await poster.post({ channelId: place.channelId }, { blocks: [], files }))
      : undefined,
  };
  // Interaction webhooks need no token; retries are fine for them (edits are idempotent), and a
  // rate limit is waited out: a rejected follow-up would be an answer lost, not retried later.
  const webhookRest = createDiscordRest({ apiUrl, retries: 2, rejectOnRateLimit: false });
  let client: Client | undefined;
  let leader: { start(): Promise<void>; stop(): Promise<void> } | undefined;
  let link: Link | undefined;
  let registered = false;
  const register = async () => {
    if (registered || !(opts.registerOnStart ?? true) || !config.DISCORD_TOKEN || !config.DISCORD_APPLICATION_ID) return;
    // Once per start, when Discord first answers: a refusal (a missing scope) is not retried.
    registered = true;
    try {
      await registerCommands(
        { token: config.DISCORD_TOKEN, applicationId: config.DISCORD_APPLICATION_ID, apiUrl, guildId: config.DISCORD_GUILD_ID },
        opts.registry,
      );
      logger.info({ guild: config.DISCORD_GUILD_ID ?? 'global' }, 'registered the /rln commands with Discord');
    } catch (err) {
      logger.warn({ err }, 'could not register the /rln command; run npm run register-commands later');
    }
  };
  const disconnect = async () => {
    const c = client;
    client = undefined;
    if (c) {
      await c.destroy();
      logger.info('disconnected from the Discord gateway');
    }
  };
  let was: LinkStatus['state'] = 'stopped';
  const gatewayLink = (token: string) =>
    keepConnected({
      connect: async (events, signal) => {
        client = await startGateway({ token, apiUrl, index: getIndex, ctx, logger, signal, events });
        logger.info({ user: client.user?.tag }, 'connected to the Discord gateway');
        await register();
      },
      disconnect,
      isFatal: (err) => err instanceof GatewayRefused,
      onChange: (s, err) => {
        if (s.state === 'down' && s.retryAt) {
          const retryInS = Math.max(0, Math.round((s.retryAt - Date.now()) / 1000));
          logger.warn(
            { err, failures: s.failures, retryInS },
            'Discord is unreachable; the rest of the bot goes on, and the gateway is retried',
          );
        } else if (s.state === 'down') logger.warn({ reason: s.reason }, 'the Discord gateway connection dropped');
        else if (s.state === 'up' && was === 'down') logger.info('the Discord gateway is back');
        was = s.state;
      },
    });
  // Connect while this replica holds the gateway (or always, as one process); a leader's onLose stops the link.
  const connect = async (token: string) => {
    link = gatewayLink(token);
    await link.start();
  };
  const stopLink = async () => {
    const l = link;
    link = undefined;
    await l?.stop();
  };

  const routes = config.DISCORD_PUBLIC_KEY
    ? discordInteractionRoutes({
        publicKeyHex: config.DISCORD_PUBLIC_KEY,
        rest: webhookRest,
        index: getIndex,
        ctx,
        logger,
        replays: opts.replays,
      })
    : undefined;

  return {
    poster,
    routes,
    async start() {
      getIndex(); // Fails at start-up, not at the first interaction, when the registry breaks a Discord limit.
      if (!config.DISCORD_TOKEN && config.DISCORD_PUBLIC_KEY) {
        logger.info('HTTP interactions only: register /rln with npm run register-commands (needs DISCORD_TOKEN once)');
      }
      const token = config.DISCORD_TOKEN;
      if (token && opts.gatewayLeader) {
        leader = opts.gatewayLeader({ onLead: () => connect(token), onLose: stopLink });
        await leader.start();
      } else if (token) {
        await connect(token);
      }
    },
    gateway: () => link?.status(),
    async stop() {
      await leader?.stop();
      leader = undefined;
      await stopLink();
      for (const r of [botRest, webhookRest]) {
        r?.clearHashSweeper();
        r?.clearHandlerSweeper();
      }
    },
  };
}
