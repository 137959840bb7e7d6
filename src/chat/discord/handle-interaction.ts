/**
 * One interaction, whatever the transport (gateway or HTTP): dispatch it, answer within Discord's
 * 3 s (defer when the dispatch is not done after `deferAfterMs`), then finish through the
 * interaction webhook. Transports only implement `Responder`.
 */
import type { Logger } from '../../log.js';
import { LATE, within } from '../../vocabulary/index.js';
import type { Message, MessageFile } from '../../vocabulary/index.js';
import type { Actor, Place } from '../../vocabulary/index.js';
import type { Dispatcher, Invocation, Reply } from '../../engine/index.js';
import { dialogToModal, toDiscordPayload, type DiscordModal } from './render.js';
import { toDiscordMessage, type DiscordMessageOptions, type DiscordMessagePayload } from './to-discord-message.js';
import { DISCORD_MAX_AUTOCOMPLETE_CHOICES, DISCORD_MAX_CHOICE_NAME, DISCORD_MAX_CHOICE_VALUE, clip } from './limits.js';

export type ParsedInteraction =
  | { kind: 'command'; actor: Actor; place: Place; path: string; args: Record<string, string> }
  | { kind: 'autocomplete'; actor: Actor; focused: string }
  /** `onV2`: the message clicked is a Components V2 one, which an update must keep. */
  | { kind: 'button'; actor: Actor; place: Place; customId: string; onV2?: boolean }
  | { kind: 'modal'; actor: Actor; place: Place; customId: string; values: Record<string, string> };

/** The calls an interaction can get. The first of reply/defer/update/deferUpdate/showModal/autocomplete answers it. */
export interface Responder {
  reply(payload: DiscordMessagePayload, ephemeral: boolean): Promise<void>;
  defer(ephemeral: boolean): Promise<void>;
  update(payload: DiscordMessagePayload): Promise<void>;
  deferUpdate(): Promise<void>;
  showModal(modal: DiscordModal): Promise<void>;
  autocomplete(choices: Array<{ name: string; value: string }>): Promise<void>;
  /** After a defer: edits the deferred answer (or, after deferUpdate, the message with the button). */
  editOriginal(payload: DiscordMessagePayload): Promise<void>;
  followUp(payload: DiscordMessagePayload, ephemeral: boolean): Promise<void>;
  /**
   * A follow-up message that is only these files, through the interaction's own webhook (no bot
   * token needed): how an answer's files reach the channel when the bot has no DISCORD_TOKEN.
   */
  followUpFiles?(files: MessageFile[]): Promise<void>;
}

export interface InteractionContext {
  dispatcher: Dispatcher;
  logger: Logger;
  /** Read at each interaction (a function lets tests shorten it for one case). */
  deferAfterMs: number | (() => number);
  /** Posts the files of a channel answer after it (interaction answers carry none). */
  postFiles?: (place: Place, files: MessageFile[]) => Promise<void>;
}

async function sendFiles(ctx: InteractionContext, r: Responder, place: Place, reply: Reply): Promise<void> {
  if (reply.kind !== 'message' || reply.visibility !== 'channel' || !reply.message.files?.length) return;
  const files = reply.message.files;
  // With the bot's token: a channel message, like a report's. Without (HTTP interactions only):
  // a follow-up through the interaction's webhook, which needs none.
  const send = ctx.postFiles ? () => ctx.postFiles!(place, files) : r.followUpFiles ? () => r.followUpFiles!(files) : undefined;
  if (!send) return;
  try {
    await send();
  } catch (err) {
    ctx.logger.warn({ err, channel: place.channelId }, 'could not post the files of an answer');
  }
}

function notice(header: string, text: string, tone: Message['tone'] = 'warning'): Message {
  return { header, tone, blocks: [{ type: 'text', text }] };
}

/** Renders, or (a message that breaks a Discord limit, a bug) a short notice saying so. */
function payloadOf(message: Message, logger: Logger, o: DiscordMessageOptions = {}): DiscordMessagePayload {
  try {
    return toDiscordMessage(message, o);
  } catch (err) {
    logger.error({ err, header: message.header }, 'a reply could not be rendered for Discord');
    return toDiscordMessage(
      notice(
        'This answer cannot be shown on Discord',
        `${err instanceof Error ? err.message : String(err)}. Try the shell or Slack, and tell an admin.`,
        'danger',
      ),
      o,
    );
  }
}

function dialogErrorsMessage(errors: Record<string, string>): Message {
  return {
    header: 'Not done: the form was refused',
    tone: 'danger',
    blocks: [
      { type: 'fields', fields: Object.entries(errors).map(([label, value]) => ({ label, value })) },
      { type: 'context', text: 'Discord cannot keep a form open: run the command again to reopen it.' },
    ],
  };
}

async function safeDispatch(ctx: InteractionContext, inv: Invocation): Promise<Reply> {
  try {
    return await ctx.dispatcher.dispatch(inv);
  } catch (err) {
    ctx.logger.error({ err, via: inv.via }, 'dispatcher threw on a Discord interaction');
    return {
      kind: 'message',
      visibility: 'private',
      message: notice(
        'Something went wrong',
        'The command failed unexpectedly. Try again; if it keeps failing, tell an admin (details are in the bot log).',
        'danger',
      ),
    };
  }
}

/** Answers the first call of an interaction with a ready Reply. */
/** How an update of the clicked message renders: a V2 message stays V2, and an edit clears what V2 cannot carry. */
function updateOptions(p: ParsedInteraction): DiscordMessageOptions {
  return { edit: true, v2: p.kind === 'button' && p.onV2 ? 'always' : 'auto' };
}

async function answer(ctx: InteractionContext, r: Responder, reply: Reply, p: ParsedInteraction): Promise<void> {
  const kind = p.kind;
  if (reply.kind === 'dialog') {
    if (kind === 'modal') {
      await r.reply(
        toDiscordPayload(notice('Cannot open a second form', 'Discord cannot open a form from a form. Run the command again.')),
        true,
      );
      return;
    }
    let modal: DiscordModal;
    try {
      modal = dialogToModal(reply.dialog);
    } catch (err) {
      ctx.logger.error({ err, dialog: reply.dialog.title }, 'a dialog could not be rendered as a Discord modal');
      await r.reply(
        toDiscordPayload(
          notice('This form cannot be shown on Discord', `${err instanceof Error ? err.message : String(err)}. Tell an admin.`, 'danger'),
        ),
        true,
      );
      return;
    }
    await r.showModal(modal);
    return;
  }
  if (reply.kind === 'dialog_errors') {
    await r.reply(toDiscordPayload(dialogErrorsMessage(reply.errors)), true);
    return;
  }
  if (kind === 'button' && reply.replaceOriginal) await r.update(payloadOf(reply.message, ctx.logger, updateOptions(p)));
  else await r.reply(payloadOf(reply.message, ctx.logger), reply.visibility === 'private');
}

/** Finishes a deferred interaction with the Reply that came late. */
async function finish(ctx: InteractionContext, r: Responder, reply: Reply, deferredUpdate: boolean, p: ParsedInteraction): Promise<void> {
  if (reply.kind === 'dialog') {
    const m = notice('This needs a form', 'The answer took too long for Discord to open its form. Run the command again.');
    if (deferredUpdate) await r.followUp(toDiscordPayload(m), true);
    else await r.editOriginal(toDiscordPayload(m));
    return;
  }
  const message = reply.kind === 'dialog_errors' ? dialogErrorsMessage(reply.errors) : reply.message;
  const isPrivate = reply.kind === 'dialog_errors' || reply.visibility === 'private';
  const payload = payloadOf(message, ctx.logger);
  if (deferredUpdate) {
    if (reply.kind === 'message' && reply.replaceOriginal) await r.editOriginal(payloadOf(message, ctx.logger, updateOptions(p)));
    else await r.followUp(payload, isPrivate);
    return;
  }
  if (isPrivate) {
    // The deferred answer is public: say where the answer went, and send it privately.
    await r.editOriginal(toDiscordPayload(notice('Answered privately', 'The answer was sent to you only.', 'neutral')));
    await r.followUp(payload, true);
  } else {
    await r.editOriginal(payload);
  }
}

function deferAfter(ctx: InteractionContext): number {
  return typeof ctx.deferAfterMs === 'function' ? ctx.deferAfterMs() : ctx.deferAfterMs;
}

export async function handleInteraction(ctx: InteractionContext, p: ParsedInteraction, r: Responder): Promise<void> {
  if (p.kind === 'autocomplete') {
    const lookup = Promise.resolve()
      .then(() => ctx.dispatcher.suggestNodes(p.focused))
      .catch((err: unknown) => {
        ctx.logger.warn({ err }, 'node name suggestions failed');
        return [];
      });
    const found = await within(lookup, deferAfter(ctx));
    const list = found === LATE ? [] : found;
    await r.autocomplete(
      list
        // A value cannot be cut without breaking it, and one over the limit makes Discord refuse
        // the whole list: such a name is not offered.
        .filter((n) => n.name.length <= DISCORD_MAX_CHOICE_VALUE)
        .slice(0, DISCORD_MAX_AUTOCOMPLETE_CHOICES)
        .map((n) => ({ name: clip(`${n.name} (${n.status})`, DISCORD_MAX_CHOICE_NAME), value: n.name })),
    );
    return;
  }
  let inv: Invocation;
  if (p.kind === 'command') inv = { via: 'typed', actor: p.actor, place: p.place, path: p.path, args: p.args };
  else if (p.kind === 'button') inv = { via: 'button', actor: p.actor, place: p.place, buttonId: p.customId };
  // A checkbox comes as the yes/no typed into its text input: the dispatcher reads it as it reads every checkbox.
  else inv = { via: 'dialog', actor: p.actor, place: p.place, dialogId: p.customId, values: p.values };
  const pending = safeDispatch(ctx, inv);
  const first = await within(pending, deferAfter(ctx));
  if (first !== LATE) {
    await answer(ctx, r, first, p);
    await sendFiles(ctx, r, p.place, first);
    return;
  }
  const deferredUpdate = p.kind === 'button';
  if (deferredUpdate) await r.deferUpdate();
  else await r.defer(false);
  const reply = await pending;
  await finish(ctx, r, reply, deferredUpdate, p);
  await sendFiles(ctx, r, p.place, reply);
}
