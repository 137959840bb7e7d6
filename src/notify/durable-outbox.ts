/**
 * The durable Outbox (src/vocabulary/chat.ts) that reports and notices are posted through: a message is
 * a row of the notify outbox, posted by the outbox worker with the channel's pacing, retries
 * and incidents like any notification, and kept across restarts until it is sent.
 */
import { hasBody, type Message, type Outbox } from '../vocabulary/index.js';
import type { NotifyStore } from '../store/index.js';

export function createDurableOutbox(o: { store: NotifyStore; now: () => number; wake: () => void }): Outbox {
  const { store } = o;
  return {
    async enqueue(item) {
      const now = o.now();
      const row = (message: Message, dedupeKey: string | undefined) =>
        store.insertOutbox({
          platform: item.platform,
          channel_id: item.channelId,
          thread_id: item.threadId ?? null,
          kind: item.kind,
          message: JSON.stringify(message),
          dedupe_key: dedupeKey ?? null,
          next_attempt_at: now,
          created_at: now,
        });
      const files = item.message.files ?? [];
      if (item.platform === 'slack' && files.length && hasBody(item.message)) {
        // On Slack the files of a message are a second call after it (an upload): two rows, in
        // order, so a failed upload is retried alone and the text it follows is not posted again.
        await store.tx(async () => {
          await row({ ...item.message, files: undefined }, item.dedupeKey);
          await row({ blocks: [], files }, item.dedupeKey && `${item.dedupeKey}:files`);
        });
      } else {
        await row(item.message, item.dedupeKey);
      }
      o.wake();
    },
  };
}
