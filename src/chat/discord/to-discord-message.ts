/**
 * Which Discord shape a message takes: a Components V2 card for an incident, a report or the
 * dashboard (./render-v2.ts), an embed for every other answer and wherever the card cannot hold
 * the message (./render.ts). A message that is V2 stays V2: Discord refuses to edit it back into
 * an embed, so an edit of one (`v2: 'always'`) is a card whatever the new message is.
 */
import type { Message } from '../../vocabulary/index.js';
import { DISCORD_FLAG_IS_COMPONENTS_V2 } from './limits.js';
import { DiscordRenderError, toDiscordPayload, type DiscordPayload } from './render.js';
import { toDiscordV2Payload, type DiscordV2Payload, type V2Options } from './render-v2.js';

export type DiscordMessagePayload = DiscordPayload | DiscordV2Payload;

export interface DiscordMessageOptions extends V2Options {
  /** 'auto' (default): by the message's purpose; 'always': the message edited is a V2 one. */
  v2?: 'auto' | 'always';
}

const CARD_PURPOSES = new Set<Message['purpose']>(['incident', 'report', 'dashboard']);

export function isV2Payload(p: DiscordMessagePayload): p is DiscordV2Payload {
  return 'flags' in p && typeof p.flags === 'number' && (p.flags & DISCORD_FLAG_IS_COMPONENTS_V2) !== 0;
}

/** Whether a message goes out as a V2 card when nothing forces it. */
export function wantsV2(message: Message): boolean {
  return CARD_PURPOSES.has(message.purpose);
}

export function toDiscordMessage(message: Message, o: DiscordMessageOptions = {}): DiscordMessagePayload {
  if (o.v2 !== 'always' && !wantsV2(message)) return toDiscordPayload(message);
  try {
    return toDiscordV2Payload(message, o);
  } catch (e) {
    if (!(e instanceof DiscordRenderError)) throw e;
    if (o.v2 !== 'always') return toDiscordPayload(message);
    // An edit of a card that cannot hold this message: the card says so, without its buttons.
    return toDiscordV2Payload(
      {
        header: message.header,
        tone: message.tone,
        blocks: [...message.blocks, { type: 'context', text: `Its buttons cannot be shown here (${e.message}).` }],
      },
      { edit: o.edit },
    );
  }
}
