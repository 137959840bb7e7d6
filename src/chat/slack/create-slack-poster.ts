/**
 * The ChatPoster for Slack: chat.postMessage / chat.update with a WebClient that does NOT
 * retry on its own (rejectRateLimitedCalls, retries 0): the outbox paces and retries, after
 * the PostError kind says how (see ./to-post-error.ts).
 */
import { webApi } from '@slack/bolt';
import type { ChatPoster } from '../../vocabulary/index.js';
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
  /** Per-call timeout (default 10 s). */
  timeoutMs?: number;
}

export function createSlackPoster(opts: SlackPosterOptions): ChatPoster {
  const web = new webApi.WebClient(opts.token, {
    slackApiUrl: opts.slackApiUrl,
    logger: toBoltLogger(opts.logger),
    rejectRateLimitedCalls: true,
    retryConfig: { retries: 0 },
    timeout: opts.timeoutMs ?? 10_000,
  });
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
        const res = await web.chat.postMessage({
          channel: target.channelId,
          thread_ts: target.threadId,
          unfurl_links: false,
          unfurl_media: false,
          ...payload,
        });
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
        await web.chat.update({
          channel: target.channelId,
          ts: target.messageId,
          ...payload,
          attachments: payload.attachments ?? [],
        } as Parameters<typeof web.chat.update>[0]);
      } catch (e) {
        throw toPostError(e, what);
      }
    },
  };
}
