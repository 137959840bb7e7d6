/**
 * How the notifier and the report scheduler post to a channel, whatever the platform.
 * Each adapter (src/chat/slack, src/chat/discord, src/chat/shell) implements ChatPoster.
 */
import type { Message } from './message.js';
import type { Place, Platform } from './actors.js';

export interface PostTarget {
  channelId: string;
  /** Post as a reply in this thread (Slack thread_ts / Discord thread channel id or message reference). */
  threadId?: string;
}

/** How one post is named, for a platform that can recognise a post sent again. */
export interface PostOptions {
  /**
   * Names this post: the same key for every attempt at the same post (the outbox: its rows'
   * ids), a different one for any other post. Where the platform takes an idempotency key
   * (Discord's message nonce) an attempt at a post already made returns that post instead of
   * making it again; elsewhere it is ignored.
   */
  key?: string;
}

export interface ChatPoster {
  readonly platform: Platform;
  /** Posts a message. Buttons must already carry ids (Dispatcher.prepareMessage). */
  post(target: PostTarget, message: Message, opts?: PostOptions): Promise<{ messageId: string; threadId?: string }>;
  /** Edits a posted message in place (Slack chat.update / Discord message edit). */
  update(target: { channelId: string; messageId: string }, message: Message): Promise<void>;
}

/**
 * Gives a message's buttons their stored ids before it is posted: the engine's ButtonIds does
 * it (src/engine/button-ids.ts), and the notifier is handed that one, knowing only this.
 */
export interface ButtonPreparer {
  /** Stores each button without an id and returns the message ready to render. */
  prepare(message: Message, opts?: { ttlMs?: number }): Promise<Message>;
}

export type PostErrorKind =
  /** 429: wait `retryAfterMs`, then retry. */
  | 'rate_limited'
  /** 5xx or network: retry with backoff. */
  | 'transient'
  /** The channel no longer exists, or the bot was removed from it: pause the watch, tell the admins. */
  | 'channel_gone'
  /** Anything else that retrying will not fix. */
  | 'permanent';

export class PostError extends Error {
  override readonly name = 'PostError';
  constructor(
    readonly kind: PostErrorKind,
    message: string,
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

/**
 * The durable outbox (implemented in src/notify). Status events and scheduled reports are
 * written here, in the same transaction as whatever produced them where possible, and
 * posted by the notifier with pacing, retries and coalescing.
 */
export interface OutboxItem {
  platform: Platform;
  channelId: string;
  threadId?: string;
  kind: 'event' | 'report' | 'notice' | 'incident';
  message: Message;
  /** Items with the same key are posted once. */
  dedupeKey?: string;
}

export interface Outbox {
  /** Resolves once the item is stored (it is posted later). */
  enqueue(item: OutboxItem): Promise<void>;
}

/**
 * A message a long command keeps up to date while it works (`node logs` waiting for an export),
 * posted where the command was typed and edited in place. Best effort: undefined when it cannot
 * be posted there (no poster for the platform, a channel the bot cannot post in).
 */
export interface ProgressReporter {
  start(place: Place, message: Message): Promise<{ update(message: Message): Promise<void> } | undefined>;
}
