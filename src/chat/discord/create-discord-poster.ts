/**
 * The Discord ChatPoster: posts and edits channel messages over REST with the bot token.
 * Threads: `threadId` is the id of the message the thread hangs from (Discord gives a thread
 * started from a message the same id). The first post into it creates the thread from that
 * message (`POST /channels/{c}/messages/{m}/threads`), later posts go straight into it.
 *
 * A post given up on before Discord answered may still have been made, and the outbox, told it
 * failed, sends it again. A post named by a key (the outbox's: its rows) carries a nonce made from
 * it with `enforce_nonce`: Discord then answers a post whose nonce the bot used in the last few
 * minutes with the message already made, and makes none. And, as for Slack, a slow answer is
 * waited for (logged after `slowAfterMs`), a call given up only after the REST client's timeout
 * (DISCORD_CALL_TIMEOUT_MS).
 */
import { createHash } from 'node:crypto';
import { DiscordAPIError, HTTPError, RateLimitError, Routes, type REST } from 'discord.js';
import { PostError, watchSlow, type ChatPoster, type PostTarget } from '../../vocabulary/index.js';
import type { Logger } from '../../log.js';
import { fileBytes, hasBody, summaryOf, type Message } from '../../vocabulary/index.js';
import { isV2Payload, toDiscordMessage } from './to-discord-message.js';
import { attachmentName } from './render-v2.js';
import { clip } from './limits.js';

/** Discord JSON error codes meaning the channel is gone or closed to the bot. */
export const DISCORD_UNKNOWN_CHANNEL = 10003;
export const DISCORD_UNKNOWN_MESSAGE = 10008;
export const DISCORD_MISSING_ACCESS = 50001;
export const DISCORD_MISSING_PERMISSIONS = 50013;
export const DISCORD_THREAD_ALREADY_CREATED = 160004;
const GONE_CODES = new Set([DISCORD_UNKNOWN_CHANNEL, DISCORD_MISSING_ACCESS, DISCORD_MISSING_PERMISSIONS]);
const THREAD_NAME_MAX = 100;
const DEFAULT_RETRY_AFTER_MS = 1_000;
/** Discord's limit on a message nonce's length. */
export const DISCORD_NONCE_MAX = 25;
/**
 * Default give-up bound of a call to post (the bot REST client's timeout): far beyond any answer
 * Discord gives, so a slow post is waited for rather than sent again.
 */
export const DISCORD_CALL_TIMEOUT_MS = 120_000;
/** A call still unanswered after this long is logged, and waited for. */
export const DISCORD_SLOW_AFTER_MS = 10_000;

/**
 * The nonce of a post named `key`: the same for every attempt at it, another for another key;
 * 25 characters of its SHA-256 (hex: 100 bits), within Discord's limit.
 */
export function discordNonce(key: string): string {
  return createHash('sha256').update(key).digest('hex').slice(0, DISCORD_NONCE_MAX);
}

/** Maps a REST failure to a PostError the outbox can act on. Never includes the token. */
export function toPostError(e: unknown, what: string): PostError {
  if (e instanceof PostError) return e;
  if (e instanceof RateLimitError) {
    const ms = Math.ceil(e.retryAfter > 0 ? e.retryAfter : e.timeToReset > 0 ? e.timeToReset : DEFAULT_RETRY_AFTER_MS);
    return new PostError('rate_limited', `${what}: Discord rate limit on ${e.route}; retry in ${ms} ms`, ms);
  }
  if (e instanceof DiscordAPIError) {
    const code = typeof e.code === 'number' ? e.code : Number(e.code);
    if (e.status === 429) return new PostError('rate_limited', `${what}: Discord rate limit`, DEFAULT_RETRY_AFTER_MS);
    if (e.status >= 500) return new PostError('transient', `${what}: Discord answered ${e.status} (${e.message}); will retry`);
    if (GONE_CODES.has(code) || e.status === 404) {
      return new PostError('channel_gone', `${what}: ${e.message} (code ${code}); the channel is gone or the bot was removed from it`);
    }
    return new PostError('permanent', `${what}: Discord refused it with ${e.status} ${e.message} (code ${code})`);
  }
  if (e instanceof Error && e.name === 'AbortError') {
    return new PostError('transient', `${what}: no answer from Discord in time; it may have made the post; retrying later`);
  }
  if (e instanceof HTTPError) {
    if (e.status >= 500 || e.status === 0) return new PostError('transient', `${what}: Discord answered ${e.status}; will retry`);
    if (e.status === 404) return new PostError('channel_gone', `${what}: Discord answered 404; the channel is gone`);
    return new PostError('permanent', `${what}: Discord answered ${e.status} ${e.message}`);
  }
  const why = e instanceof Error ? e.message : String(e);
  return new PostError('transient', `${what}: could not reach Discord (${why}); will retry`);
}

function isUnknownChannel(e: unknown): boolean {
  return e instanceof DiscordAPIError && (Number(e.code) === DISCORD_UNKNOWN_CHANNEL || e.status === 404);
}

/** Discord's attachment description limit. */
export const DISCORD_MAX_ATTACHMENT_DESCRIPTION = 1024;

/**
 * The REST request of a message: JSON, or, with files, multipart with the JSON in payload_json
 * and each file a part named in `attachments` (discord.js builds the form from `files`). A V2
 * card shows its files inside it, named `attachment://…`; an embed leaves them below it.
 */
export function withAttachments(message: Message): {
  body: Record<string, unknown>;
  files?: Array<{ name: string; data: Buffer; contentType: string }>;
} {
  const files = message.files ?? [];
  const payload = hasBody(message) ? toDiscordMessage(message, { files: true }) : undefined;
  const body = (payload ?? {}) as Record<string, unknown>;
  if (!files.length) return { body };
  // A V2 card names its files: they go under the names it names them by.
  const name = (n: string) => (payload && isV2Payload(payload) ? attachmentName(n) : n);
  return {
    body: {
      ...body,
      attachments: files.map((f, i) => ({ id: i, filename: name(f.name), description: clip(f.alt, DISCORD_MAX_ATTACHMENT_DESCRIPTION) })),
    },
    files: files.map((f) => ({ name: name(f.name), data: fileBytes(f), contentType: f.mime })),
  };
}

export interface DiscordPosterOptions {
  /** Says when a call is still unanswered after slowAfterMs (it is waited for). */
  logger?: Logger;
  slowAfterMs?: number;
}

export function createDiscordPoster(rest: REST | undefined, opts: DiscordPosterOptions = {}): ChatPoster {
  const slowAfterMs = opts.slowAfterMs ?? DISCORD_SLOW_AFTER_MS;
  /** Runs a call, and says so if Discord has not answered it after slowAfterMs (it is still waited for). */
  const watched = <T>(what: string, call: () => Promise<T>): Promise<T> => {
    const log = opts.logger;
    return watchSlow(
      call,
      slowAfterMs,
      log &&
        (() =>
          log.warn(
            { call: what, waitedMs: slowAfterMs },
            'Discord has not answered yet; still waiting for its answer (a post given up on may still be made)',
          )),
    );
  };
  const need = (): REST => {
    if (!rest) {
      throw new PostError(
        'permanent',
        'posting to Discord needs DISCORD_TOKEN (a bot token); HTTP interactions alone cannot post to channels',
      );
    }
    return rest;
  };
  return {
    platform: 'discord',
    async post(target: PostTarget, message: Message, postOpts) {
      const what = `posting to Discord channel ${target.channelId}`;
      const nonce = postOpts?.key ? { nonce: discordNonce(postOpts.key), enforce_nonce: true } : {};
      const postIn = async (channelId: string, m: Message): Promise<string> => {
        const req = withAttachments(m);
        const res = (await watched(what, () =>
          need().post(Routes.channelMessages(channelId), { ...req, body: { ...req.body, ...nonce } }),
        )) as {
          id: string;
        };
        return res.id;
      };
      try {
        if (!target.threadId || target.threadId === target.channelId) {
          return { messageId: await postIn(target.channelId, message) };
        }
        try {
          return { messageId: await postIn(target.threadId, message), threadId: target.threadId };
        } catch (e) {
          if (!isUnknownChannel(e)) throw e;
          // No thread yet: start one from the parent message (it takes the message's id).
          let threadId = target.threadId;
          try {
            const thread = (await need().post(Routes.threads(target.channelId, target.threadId), {
              body: { name: clip(summaryOf(message) || 'Updates', THREAD_NAME_MAX), auto_archive_duration: 1440 },
            })) as { id: string };
            threadId = thread.id;
          } catch (err) {
            // Another post created it in the meantime: post into it.
            if (!(err instanceof DiscordAPIError && Number(err.code) === DISCORD_THREAD_ALREADY_CREATED)) throw err;
          }
          return { messageId: await postIn(threadId, message), threadId };
        }
      } catch (e) {
        throw toPostError(e, what);
      }
    },
    async update(target, message) {
      try {
        await watched(`editing Discord message ${target.messageId}`, () =>
          need().patch(Routes.channelMessage(target.channelId, target.messageId), {
            body: toDiscordMessage(message, { edit: true }),
          }),
        );
      } catch (e) {
        throw toPostError(e, `editing Discord message ${target.messageId} in channel ${target.channelId}`);
      }
    },
  };
}
