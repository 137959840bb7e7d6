/**
 * Discord HTTP interactions: POST /discord/interactions on the bot's fastify server.
 * The raw body is verified (Ed25519 over timestamp + body) before anything else; a bad or
 * missing signature gets 401. The first answer is the HTTP response; later ones go through
 * the interaction webhook over REST (no bot token needed).
 */
import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import type { FastifyPluginAsync } from 'fastify';
import { Routes, type REST } from 'discord.js';
import type { Logger } from '../../log.js';
import type { CommandIndex } from './build-command-data.js';
import { handleInteraction, type InteractionContext, type Responder } from './handle-interaction.js';
import { parseRawInteraction, type RawInteraction } from './parse-interaction.js';
import { CALLBACK, EPHEMERAL_FLAG, INTERACTION } from './limits.js';
import { admitBodies, createReplayGuard, type ReplayGuard } from '../../http/index.js';
import { withAttachments } from './create-discord-poster.js';
import type { DiscordMessagePayload } from './to-discord-message.js';

export const DISCORD_INTERACTIONS_PATH = '/discord/interactions';
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

export function discordPublicKey(hex: string): KeyObject {
  return createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, Buffer.from(hex, 'hex')]), format: 'der', type: 'spki' });
}

/** Signed requests older (or newer) than this are refused as replays. */
export const DISCORD_MAX_SIGNATURE_AGE_MS = 5 * 60_000;

/** True when `signatureHex` is the Ed25519 signature of `timestamp + rawBody`, and the timestamp is recent. */
export function verifyDiscordSignature(
  key: KeyObject,
  timestamp: string | undefined,
  rawBody: Buffer,
  signatureHex: string | undefined,
  nowMs: number = Date.now(),
): boolean {
  if (!timestamp || !signatureHex || !/^[0-9a-fA-F]{128}$/.test(signatureHex) || !/^\d{1,12}$/.test(timestamp)) return false;
  if (Math.abs(nowMs - Number(timestamp) * 1000) > DISCORD_MAX_SIGNATURE_AGE_MS) return false;
  try {
    return verify(null, Buffer.concat([Buffer.from(timestamp, 'utf8'), rawBody]), key, Buffer.from(signatureHex, 'hex'));
  } catch {
    return false;
  }
}

function httpResponder(raw: RawInteraction, rest: REST, first: (body: unknown) => void): Responder {
  const original = Routes.webhookMessage(raw.application_id, raw.token, '@original');
  const flags = (e: boolean) => (e ? { flags: EPHEMERAL_FLAG } : {});
  // A V2 card's flag and the ephemeral flag go together.
  const withFlags = (p: DiscordMessagePayload, e: boolean) => {
    const f = ('flags' in p ? p.flags : 0) | (e ? EPHEMERAL_FLAG : 0);
    return f ? { ...p, flags: f } : p;
  };
  return {
    reply: async (p, e) => first({ type: CALLBACK.CHANNEL_MESSAGE, data: withFlags(p, e) }),
    defer: async (e) => first({ type: CALLBACK.DEFERRED_CHANNEL_MESSAGE, ...(e ? { data: flags(e) } : {}) }),
    update: async (p) => first({ type: CALLBACK.UPDATE_MESSAGE, data: p }),
    deferUpdate: async () => first({ type: CALLBACK.DEFERRED_UPDATE_MESSAGE }),
    showModal: async (m) => first({ type: CALLBACK.MODAL, data: m }),
    autocomplete: async (choices) => first({ type: CALLBACK.AUTOCOMPLETE_RESULT, data: { choices } }),
    editOriginal: async (p) => void (await rest.patch(original, { body: p, auth: false })),
    followUp: async (p, e) => void (await rest.post(Routes.webhook(raw.application_id, raw.token), { body: withFlags(p, e), auth: false })),
    followUpFiles: async (files) => {
      const { body, files: parts } = withAttachments({ blocks: [], files });
      await rest.post(Routes.webhook(raw.application_id, raw.token), {
        body: { ...body, allowed_mentions: { parse: [] } },
        files: parts,
        auth: false,
      });
    },
  };
}

export interface HttpInteractionsOptions {
  publicKeyHex: string;
  rest: REST;
  index: () => CommandIndex;
  ctx: InteractionContext;
  logger: Logger;
  /** Signed requests already accepted; pass one backed by the database so it survives a restart. Default: in memory. */
  replays?: ReplayGuard;
  /** Bodies read at once; more get 503 before their body is read. Default 32. */
  maxInFlight?: number;
}

/** Interactions are small (a modal submission is at most 5 inputs of 4,000 characters). */
export const DISCORD_BODY_LIMIT = 256 * 1024;

export function discordInteractionRoutes(opts: HttpInteractionsOptions): FastifyPluginAsync {
  const key = discordPublicKey(opts.publicKeyHex);
  // Signatures already accepted: a captured interaction re-sent inside the window is refused.
  const replays = opts.replays ?? createReplayGuard({ windowMs: DISCORD_MAX_SIGNATURE_AGE_MS });
  return async (app) => {
    // Encapsulated: the raw-body parser applies to this plugin's routes only.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: DISCORD_BODY_LIMIT }, (_req, body, done) => done(null, body));
    app.addHook(
      'onRequest',
      admitBodies({
        bodyLimit: DISCORD_BODY_LIMIT,
        maxInFlight: opts.maxInFlight ?? 32,
        signed: (req) => Boolean(req.headers['x-signature-ed25519'] && req.headers['x-signature-timestamp']),
        refuse: (req, reply, code, reason) => {
          opts.logger.warn({ ip: req.ip, reason, status: code }, 'refused a Discord interaction before reading it');
          return reply.code(code).send({ error: code === 401 ? 'invalid request signature' : reason });
        },
      }),
    );
    app.post(DISCORD_INTERACTIONS_PATH, { bodyLimit: DISCORD_BODY_LIMIT }, async (req, reply) => {
      const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const nowMs = Date.now();
      const signature = req.headers['x-signature-ed25519'] as string | undefined;
      const ok = verifyDiscordSignature(key, req.headers['x-signature-timestamp'] as string | undefined, body, signature, nowMs);
      if (!ok) {
        opts.logger.warn({ ip: req.ip }, 'refused a Discord interaction with a bad or missing signature');
        return reply.code(401).send({ error: 'invalid request signature' });
      }
      // Discord sends each interaction once: the same signed request again is a replay.
      if (!(await replays.firstTime(signature!.toLowerCase(), nowMs))) {
        opts.logger.warn({ ip: req.ip }, 'refused a replayed Discord interaction (the same signed request was already accepted)');
        return reply.code(401).send({ error: 'invalid request signature' });
      }
      let raw: RawInteraction;
      try {
        raw = JSON.parse(body.toString('utf8')) as RawInteraction;
      } catch {
        return reply.code(400).send({ error: 'the body is not JSON' });
      }
      // Signed but not an interaction (`null`, a number, an array): say so, never an internal error.
      if (!raw || typeof raw !== 'object' || Array.isArray(raw) || typeof (raw as { type?: unknown }).type !== 'number') {
        opts.logger.warn({ ip: req.ip }, 'refused a signed Discord request that is not an interaction object');
        return reply.code(400).send({ error: 'the body must be an interaction object with a numeric type' });
      }
      if (raw.type === INTERACTION.PING) return reply.send({ type: CALLBACK.PONG });
      const parsed = parseRawInteraction(raw, opts.index());
      if (!parsed) return reply.code(400).send({ error: `interaction type ${raw.type} is not handled by this bot` });
      let resolveFirst!: (body: unknown) => void;
      const firstAnswer = new Promise<unknown>((resolve) => (resolveFirst = resolve));
      const done = handleInteraction(opts.ctx, parsed, httpResponder(raw, opts.rest, resolveFirst)).catch((err) => {
        opts.logger.error({ err, kind: parsed.kind }, 'answering a Discord interaction failed');
        // Autocomplete accepts only a type 8 answer.
        if (parsed.kind === 'autocomplete') return resolveFirst({ type: CALLBACK.AUTOCOMPLETE_RESULT, data: { choices: [] } });
        resolveFirst({
          type: CALLBACK.CHANNEL_MESSAGE,
          data: {
            content: 'Something went wrong answering this. Try again; details are in the bot log.',
            flags: EPHEMERAL_FLAG,
            allowed_mentions: { parse: [] },
          },
        });
      });
      void done;
      const answer = await firstAnswer;
      return reply.header('content-type', 'application/json').send(answer);
    });
  };
}
