/**
 * How the Slack adapter answers: a Reply rendered to Block Kit and sent through response_url
 * (respond), views.open, or the Web API when those fail; and the dispatcher call that never
 * leaves the user without an answer.
 */
import type { App as BoltApp, RespondFn } from '@slack/bolt';
import type { ChatPoster, Message } from '../../vocabulary/index.js';
import type { Dialog, Dispatcher, Invocation, Reply } from '../../engine/index.js';
import type { Logger } from '../../log.js';
import { dialogToModal, type ModalOrigin } from './dialog-to-modal.js';
import { toBlockKit, type BlockKitMessage } from './render.js';

/** Where and how a Reply is delivered. */
export interface ReplyRoute {
  respond?: RespondFn;
  triggerId?: string;
  origin: ModalOrigin;
  userId: string;
}

/** A short warning, for answers the adapter writes itself. */
export const plainMessage = (text: string): Message => ({ blocks: [{ type: 'text', text }], tone: 'warning' });

export interface ReplyDelivery {
  sendMessage: (message: Message, visibility: 'channel' | 'private', route: ReplyRoute, replaceOriginal?: boolean) => Promise<void>;
  deliver: (reply: Reply, route: ReplyRoute) => Promise<void>;
  /** The dispatcher's Reply to an invocation; a generic apology should it throw. */
  run: (inv: Invocation) => Promise<Reply>;
}

export function createReplyDelivery(opts: { app: BoltApp; dispatcher: Dispatcher; log: Logger; poster: ChatPoster }): ReplyDelivery {
  const { app, dispatcher, log, poster } = opts;

  const render = (m: Message): BlockKitMessage => {
    try {
      return toBlockKit(m);
    } catch (e) {
      log.error({ err: e }, 'could not render a message for Slack');
      return toBlockKit(
        plainMessage('The answer could not be shown on Slack (it broke a Block Kit limit). The details are in the bot log.'),
      );
    }
  };

  async function openDialog(dialog: Dialog, route: ReplyRoute): Promise<void> {
    if (!route.triggerId) {
      await sendMessage(
        plainMessage('This step needs a dialog, which Slack can only open right after a command or a click. Run the command again.'),
        'private',
        route,
      );
      return;
    }
    try {
      await app.client.views.open({ trigger_id: route.triggerId, view: dialogToModal(dialog, route.origin) as never });
    } catch (e) {
      log.warn({ err: e, dialog: dialog.id }, 'views.open failed');
      await sendMessage(
        plainMessage('The dialog could not be opened (Slack allows 3 seconds after a command). Run the command again.'),
        'private',
        route,
      );
    }
  }

  async function sendMessage(
    message: Message,
    visibility: 'channel' | 'private',
    route: ReplyRoute,
    replaceOriginal = false,
  ): Promise<void> {
    const payload = render(message);
    if (route.respond) {
      try {
        if (replaceOriginal) await route.respond({ replace_original: true, ...payload });
        else
          await route.respond({
            response_type: visibility === 'channel' ? 'in_channel' : 'ephemeral',
            replace_original: false,
            ...payload,
          } as never);
        return;
      } catch (e) {
        // response_url expired (30 min, 5 uses) or refused: answer through the Web API instead.
        log.warn({ err: e }, 'respond() failed; answering through the Web API');
      }
    }
    const base = { channel: route.origin.channelId, thread_ts: route.origin.threadId, ...payload };
    try {
      if (visibility === 'private') await app.client.chat.postEphemeral({ ...base, user: route.userId });
      else await app.client.chat.postMessage(base);
    } catch (e) {
      // Not in that channel (or it is gone): the user still gets the answer, as a direct message.
      log.warn({ err: e, channel: route.origin.channelId }, 'could not answer in the channel; sending a direct message instead');
      await app.client.chat.postMessage({ ...payload, channel: route.userId });
    }
  }

  /**
   * response_url cannot carry files: a channel answer's files (a QR code, a chart, a log) are
   * uploaded after it through the poster, as the outbox uploads a report's. A private answer
   * keeps its files to itself (sharing them would show them to the channel).
   */
  async function sendFiles(message: Message, visibility: 'channel' | 'private', route: ReplyRoute): Promise<void> {
    if (!message.files?.length || visibility !== 'channel') return;
    try {
      await poster.post({ channelId: route.origin.channelId, threadId: route.origin.threadId }, { blocks: [], files: message.files });
    } catch (e) {
      log.warn({ err: e, channel: route.origin.channelId }, 'could not upload the files of an answer');
      await sendMessage(plainMessage(`The file(s) of this answer could not be uploaded: ${(e as Error).message}`), 'private', route);
    }
  }

  async function deliver(reply: Reply, route: ReplyRoute): Promise<void> {
    try {
      switch (reply.kind) {
        case 'message':
          await sendMessage(reply.message, reply.visibility, route, reply.replaceOriginal);
          await sendFiles(reply.message, reply.visibility, route);
          return;
        case 'dialog':
          await openDialog(reply.dialog, route);
          return;
        case 'dialog_errors':
          await sendMessage(plainMessage(Object.values(reply.errors).join('\n')), 'private', route);
          return;
      }
    } catch (e) {
      log.error({ err: e, kind: reply.kind }, 'could not deliver a reply to Slack');
    }
  }

  async function run(inv: Invocation): Promise<Reply> {
    try {
      return await dispatcher.dispatch(inv);
    } catch (e) {
      // The dispatcher never throws by contract; if it does, the user still gets an answer.
      log.error({ err: e }, 'dispatcher threw');
      return {
        kind: 'message',
        visibility: 'private',
        message: plainMessage('Something went wrong on our side; it is in the bot log. Try again.'),
      };
    }
  }

  return { sendMessage, deliver, run };
}
