/**
 * Maps a @slack/web-api error to a PostError the outbox can act on: wait and retry (429),
 * retry with backoff (5xx, network), pause the watch (channel gone), or give up.
 * The message names the call and the channel, never the token.
 */
import { PostError } from '../../vocabulary/index.js';
import { redactText } from '../../log.js';

/** Slack error codes meaning the channel is gone or closed to the bot. */
export const SLACK_CHANNEL_GONE_ERRORS = new Set([
  'channel_not_found',
  'not_in_channel',
  'is_archived',
  'channel_is_archived',
  'account_inactive',
  'team_access_not_granted',
]);

const TRANSIENT_PLATFORM_ERRORS = new Set(['internal_error', 'fatal_error', 'service_unavailable', 'request_timeout', 'ratelimited']);

interface SlackLikeError {
  code?: string;
  message?: string;
  retryAfter?: number;
  statusCode?: number;
  data?: { error?: string; response_metadata?: { retryAfter?: number } };
}

export function toPostError(e: unknown, what: string): PostError {
  if (e instanceof PostError) return e;
  const err = (e ?? {}) as SlackLikeError;
  switch (err.code) {
    case 'slack_webapi_rate_limited_error': {
      const sec = typeof err.retryAfter === 'number' && err.retryAfter >= 0 ? err.retryAfter : 1;
      return new PostError('rate_limited', `${what}: Slack is rate limiting this app; retry after ${sec} s`, sec * 1000);
    }
    case 'slack_webapi_platform_error': {
      const code = err.data?.error ?? 'unknown_error';
      if (SLACK_CHANNEL_GONE_ERRORS.has(code)) {
        return new PostError(
          'channel_gone',
          `${what}: ${code}. The channel no longer exists or the bot is not in it; invite the bot or remove the watch`,
        );
      }
      if (code === 'ratelimited') {
        const sec = err.data?.response_metadata?.retryAfter ?? 1;
        return new PostError('rate_limited', `${what}: ratelimited; retry after ${sec} s`, sec * 1000);
      }
      if (TRANSIENT_PLATFORM_ERRORS.has(code)) return new PostError('transient', `${what}: Slack answered ${code}; retrying later`);
      return new PostError('permanent', `${what}: Slack refused it (${code})`);
    }
    case 'slack_webapi_http_error': {
      const status = err.statusCode ?? 0;
      if (status === 429) return new PostError('rate_limited', `${what}: HTTP 429`, 1000);
      if (status >= 500 || status === 408) return new PostError('transient', `${what}: Slack answered HTTP ${status}; retrying later`);
      return new PostError('permanent', `${what}: Slack answered HTTP ${status}`);
    }
    case 'slack_webapi_request_error':
      return new PostError('transient', `${what}: could not reach Slack (${redactText(err.message ?? '')}); retrying later`);
    default: {
      const m = redactText(err.message ?? String(e));
      // A 429 whose Retry-After could not be read is still a rate limit.
      if (/rate limit|retry header/i.test(m)) return new PostError('rate_limited', `${what}: rate limited`, 1000);
      return new PostError('permanent', `${what}: ${m}`);
    }
  }
}
