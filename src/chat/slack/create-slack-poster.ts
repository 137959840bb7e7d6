/**
 * The ChatPoster for Slack: chat.postMessage / chat.update with a WebClient that does NOT
 * retry on its own (rejectRateLimitedCalls, retries 0): the outbox paces and retries, after
 * the PostError kind says how (see ./to-post-error.ts).
 *
 * A post is not idempotent: Slack takes no key to recognise the same post sent again. A call
 * given up before Slack answered may still be carried out, and the outbox, told it failed,
 * posts it again: the same alert twice, from a bot that never stopped. So a call is given up
 * only when no answer can be expected any more (`timeoutMs`, 2 minutes); a slow answer
 * (`slowAfterMs`) is waited for, and logged.
 */
import { webApi } from '@slack/bolt';
import { PostError, watchSlow, type ChatPoster } from '../../vocabulary/index.js';
import { hasBody, type Message } from '../../vocabulary/index.js';
import type { Logger } from '../../log.js';
import { toBlockKit } from './render.js';
import { toBoltLogger } from './to-bolt-logger.js';
import { toPostError } from './to-post-error.js';
import { uploadFiles } from './upload-files.js';

export interface SlackPosterOptions {
  token: string;
  slackApiUrl?: string;
  logger: Logger;
  /**
   * A call is given up after this long without an answer (default 2 minutes). Slack may still
   * carry out a call given up on: a post would then be posted twice.
   */
  timeoutMs?: number;
  /** A call still unanswered after this long is logged, and waited for (default 10 s). */
  slowAfterMs?: number;
}

/** Default give-up bound of one call: far beyond any answer Slack gives, so a slow post is not posted twice. */
export const SLACK_CALL_TIMEOUT_MS = 120_000;

export function createSlackPoster(opts: SlackPosterOptions): ChatPoster {
  const web = new webApi.WebClient(opts.token, {
    slackApiUrl: opts.slackApiUrl,
    logger: toBoltLogger(opts.logger),
    rejectRateLimitedCalls: true,
    retryConfig: { retries: 0 },
    timeout: opts.timeoutMs ?? SLACK_CALL_TIMEOUT_MS,
  });
  const timeoutMs = opts.timeoutMs ?? SLACK_CALL_TIMEOUT_MS;
  const slowAfterMs = opts.slowAfterMs ?? 10_000;
  /**
   * Runs a call, says so if Slack has not answered it after slowAfterMs (it is still waited
   * for), and names a call given up at timeoutMs for what it is: one whose outcome is unknown.
   */
  const watched = async <T>(what: string, call: () => Promise<T>): Promise<T> => {
    try {
      return await watchSlow(call, slowAfterMs, () =>
        opts.logger.warn(
          { call: what, waitedMs: slowAfterMs },
          'Slack has not answered yet; still waiting for its answer (a post given up on may still be made, and would be posted twice)',
        ),
      );
    } catch (e) {
      const original = (e as { original?: unknown }).original;
      if (original instanceof Error && original.name === 'TimeoutError') {
        throw new PostError('transient', `${what}: no answer within ${timeoutMs} ms: Slack may have posted it; retrying later`);
      }
      throw e;
    }
  };
  const render = (message: Message, what: string) => {
    try {
      return toBlockKit(message);
    } catch (e) {
      throw toPostError(e, what);
    }
  };
  return {
    platform: 'slack',
    async post(target, message) {
      const what = `Slack chat.postMessage to ${target.channelId}`;
      const files = message.files ?? [];
      // A message that is only files (a command's chart or QR after its answer) is only uploaded.
      if (files.length && !hasBody(message)) {
        await uploadFiles(web, target, files);
        return { messageId: '', threadId: target.threadId };
      }
      const payload = render(message, what);
      let posted: { messageId: string; threadId?: string };
      try {
        const res = await watched(what, () =>
          web.chat.postMessage({
            channel: target.channelId,
            thread_ts: target.threadId,
            unfurl_links: false,
            unfurl_media: false,
            ...payload,
          }),
        );
        const ts = String(res.ts ?? '');
        posted = { messageId: ts, threadId: target.threadId ?? ts };
      } catch (e) {
        throw toPostError(e, what);
      }
      // The files follow the message where it was posted (its channel, or the thread it is in).
      await uploadFiles(web, target, files);
      return posted;
    },
    async update(target, message) {
      const what = `Slack chat.update of ${target.messageId} in ${target.channelId}`;
      const payload = render(message, what);
      try {
        // chat.update keeps the previous attachments when the field is left out: an answer
        // without a colour bar must say so, or the old bar and its blocks stay under the new text.
        await watched(what, () =>
          web.chat.update({
            channel: target.channelId,
            ts: target.messageId,
            ...payload,
            attachments: payload.attachments ?? [],
          } as Parameters<typeof web.chat.update>[0]),
        );
      } catch (e) {
        throw toPostError(e, what);
      }
    },
  };
}
