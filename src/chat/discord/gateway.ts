/**
 * The gateway transport: a discord.js Client whose interactions are parsed into
 * ParsedInteraction and answered through discord.js's own reply/defer/update/showModal calls.
 */
import { Client, Events, MessageFlags, type Interaction } from 'discord.js';
import type { Logger } from '../../log.js';
import type { CommandIndex } from './build-command-data.js';
import { commandWords } from './build-command-data.js';
import { handleInteraction, type InteractionContext, type ParsedInteraction, type Responder } from './handle-interaction.js';
import { actorOf, placeOf, toCommand, walkOptions, type RawOption } from './parse-interaction.js';
import type { DiscordMessagePayload } from './to-discord-message.js';
import { DISCORD_DEFAULT_API } from './create-discord-rest.js';

function memberOf(i: Interaction): { roles: string[]; nick?: string | null } | undefined {
  const m = i.member as unknown as { roles?: unknown; nick?: string | null; nickname?: string | null } | null;
  if (!m) return undefined;
  const roles = Array.isArray(m.roles)
    ? (m.roles as string[])
    : m.roles && typeof m.roles === 'object' && 'cache' in m.roles
      ? [...(m.roles as { cache: Map<string, unknown> }).cache.keys()]
      : [];
  return { roles, nick: m.nick ?? m.nickname ?? null };
}

/** discord.js Interaction → ParsedInteraction (undefined: not ours). */
export function parseGatewayInteraction(i: Interaction, index: CommandIndex): ParsedInteraction | undefined {
  const member = memberOf(i);
  const actor = actorOf({
    user: { id: i.user.id, username: i.user.username, global_name: i.user.globalName },
    ...(member
      ? {
          member: {
            user: { id: i.user.id, username: i.user.username, global_name: i.user.globalName },
            roles: member.roles,
            nick: member.nick,
          },
        }
      : {}),
  });
  const place = placeOf({ channel_id: i.channelId ?? undefined, guild_id: i.guildId ?? undefined });
  if (i.isChatInputCommand()) {
    const { words, values } = walkOptions(i.options.data as unknown as RawOption[]);
    const path = commandWords(i.commandName, words);
    if (!path) return undefined;
    return { kind: 'command', actor, place, ...toCommand(index, path, values) };
  }
  if (i.isAutocomplete()) {
    return { kind: 'autocomplete', actor, focused: String(i.options.getFocused() ?? '') };
  }
  if (i.isButton()) {
    const onV2 = i.message.flags.has(MessageFlags.IsComponentsV2);
    return { kind: 'button', actor, place, customId: i.customId, ...(onV2 ? { onV2 } : {}) };
  }
  if (i.isModalSubmit()) {
    const values: Record<string, string> = {};
    for (const [id, f] of i.fields.fields) {
      const v = (f as { value?: unknown }).value;
      if (typeof v === 'string') values[id] = v;
    }
    return { kind: 'modal', actor, place, customId: i.customId, values };
  }
  return undefined;
}

function options(payload: DiscordMessagePayload, ephemeral = false) {
  const { allowed_mentions: _ignored, ...rest } = payload;
  // A V2 card's flag and the ephemeral flag go together.
  const flags = ('flags' in rest ? rest.flags : 0) | (ephemeral ? MessageFlags.Ephemeral : 0);
  return { ...rest, ...(flags ? { flags } : {}), allowedMentions: { parse: [] as [] } };
}

function ephemeral(yes: boolean) {
  return yes ? { flags: MessageFlags.Ephemeral as const } : {};
}

/**
 * The answering methods of discord.js's interaction classes, as this responder calls them
 * (the union type Interaction has each only on some of its members). The payloads are Discord's
 * own JSON shapes, which discord.js accepts alongside its builders.
 */
interface AnsweringInteraction {
  reply(options: object): Promise<unknown>;
  deferReply(options: object): Promise<unknown>;
  update(options: object): Promise<unknown>;
  deferUpdate(): Promise<unknown>;
  showModal(modal: Parameters<Responder['showModal']>[0]): Promise<unknown>;
  respond(choices: Parameters<Responder['autocomplete']>[0]): Promise<unknown>;
  editReply(options: object): Promise<unknown>;
  followUp(options: object): Promise<unknown>;
}

export function gatewayResponder(i: Interaction): Responder {
  // Each call is only reached for interaction kinds that support it (see handleInteraction).
  const it = i as unknown as AnsweringInteraction;
  return {
    reply: async (p, e) => void (await it.reply(options(p, e))),
    defer: async (e) => void (await it.deferReply(ephemeral(e))),
    update: async (p) => void (await it.update(options(p))),
    deferUpdate: async () => void (await it.deferUpdate()),
    showModal: async (m) => void (await it.showModal(m)),
    autocomplete: async (c) => void (await it.respond(c)),
    editOriginal: async (p) => void (await it.editReply(options(p))),
    followUp: async (p, e) => void (await it.followUp(options(p, e))),
  };
}

const GATEWAY_READY_TIMEOUT_MS = 30_000;

/** A failure of the gateway that retrying cannot fix (a refused DISCORD_TOKEN): start-up stops on it. */
export class GatewayRefused extends Error {}

export interface GatewayOptions {
  token: string;
  apiUrl?: string;
  index: () => CommandIndex;
  ctx: InteractionContext;
  logger: Logger;
  /** Ends a login under way (the bot stopping). */
  signal?: AbortSignal;
  /** Once ready: the connection dropped (discord.js tries to resume it), or it came back. */
  events?: { lost(reason: string): void; regained(): void };
}

/** Logs in and resolves once the client is ready; interactions are handled from then on. */
export async function startGateway(opts: GatewayOptions): Promise<Client> {
  const client = new Client({
    intents: [],
    rest: { api: opts.apiUrl ?? DISCORD_DEFAULT_API },
  });
  client.on(Events.InteractionCreate, (i) => {
    let parsed: ParsedInteraction | undefined;
    try {
      parsed = parseGatewayInteraction(i, opts.index());
    } catch (err) {
      opts.logger.warn({ err }, 'could not read a Discord interaction');
      return;
    }
    if (!parsed) return;
    handleInteraction(opts.ctx, parsed, gatewayResponder(i)).catch((err) =>
      opts.logger.error({ err, kind: parsed.kind }, 'answering a Discord interaction failed'),
    );
  });
  client.on(Events.Error, (err) => opts.logger.error({ err }, 'Discord gateway error'));
  let refused: ((err: Error) => void) | undefined;
  client.on(Events.ShardReconnecting, () => opts.events?.lost('the gateway connection dropped; reconnecting'));
  // Emitted only for the close codes no reconnect can fix (a refused token, bad intents, …).
  client.on(Events.ShardDisconnect, ({ code }) => {
    const why = `the gateway closed the connection (code ${code})`;
    refused?.(new GatewayRefused(`${why}: Discord refused the bot`));
    opts.events?.lost(why);
  });
  client.on(Events.ShardResume, () => opts.events?.regained());
  client.on(Events.ShardReady, () => opts.events?.regained());
  const ready = new Promise<void>((resolve) => client.once(Events.ClientReady, () => resolve()));
  let timer: NodeJS.Timeout | undefined;
  const failed = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no READY from the gateway within ${GATEWAY_READY_TIMEOUT_MS / 1000} s`)),
      GATEWAY_READY_TIMEOUT_MS,
    );
    refused = reject;
    opts.signal?.addEventListener('abort', () => reject(new Error('the bot is stopping')), { once: true });
  });
  try {
    await Promise.race([client.login(opts.token).then(() => ready), failed]);
  } catch (err) {
    await client.destroy().catch(() => undefined);
    const why = err instanceof Error ? err.message : String(err);
    const tokenRefused = err instanceof GatewayRefused || (err as { code?: unknown }).code === 'TokenInvalid';
    const Kind = tokenRefused ? GatewayRefused : Error;
    throw new Kind(`connecting to the Discord gateway failed: ${why}. Check DISCORD_TOKEN${opts.apiUrl ? ' and DISCORD_API_URL' : ''}.`, {
      cause: err,
    });
  } finally {
    clearTimeout(timer);
    refused = undefined;
  }
  return client;
}
