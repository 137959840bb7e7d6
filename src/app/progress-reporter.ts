import type { Logger } from '../log.js';
import type { ChatPoster, ProgressReporter } from '../vocabulary/index.js';
import type { Message } from '../vocabulary/index.js';
import type { Platform } from '../vocabulary/index.js';

/** Progress messages through the chat posters: posted where the command was typed, then edited in place. */
export function progressReporter(posters: Partial<Record<Platform, ChatPoster>>, logger: Logger): ProgressReporter {
  return {
    async start(place, message) {
      const poster = posters[place.platform];
      if (!poster) return undefined;
      const target = { channelId: place.channelId, threadId: place.threadId };
      try {
        const { messageId } = await poster.post(target, message);
        return {
          update: (m: Message) =>
            poster
              .update({ channelId: target.channelId, messageId }, m)
              .catch((e: unknown) => logger.debug({ err: e }, 'a progress message could not be updated')),
        };
      } catch (e) {
        logger.debug({ err: e, channel: place.channelId }, 'a progress message could not be posted');
        return undefined;
      }
    },
  };
}
