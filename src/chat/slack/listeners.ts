/**
 * The Slack adapter's listeners, which only translate: a slash command, a click, a modal submit
 * and an external select, each acknowledged in time and handed to the dispatcher; the Reply goes
 * back through ./reply-delivery.ts.
 */
import type { App as BoltApp } from '@slack/bolt';
import type { Actor, Place } from '../../vocabulary/index.js';
import type { Logger } from '../../log.js';
import { LATE, within } from '../../vocabulary/index.js';
import { dialogToModal, readModalOrigin, type ModalOrigin } from './dialog-to-modal.js';
import { SLACK_LISTENER_BUDGET_MS } from './fastify-receiver.js';
import { SLACK_MAX_INPUT_ERROR, SLACK_MAX_OPTIONS, SLACK_MAX_OPTION_TEXT, SLACK_MAX_OPTION_VALUE } from './limits.js';
import { truncate } from './render.js';
import type { ClickAction, ClickBody, SubmitBody, ViewState } from './payload-views.js';
import { readCommandText } from './read-command-text.js';
import { plainMessage, type ReplyDelivery, type ReplyRoute } from './reply-delivery.js';

/** Slack waits 3 s for an ack. Below the receiver's fallback ack (SLACK_ACK_FALLBACK_MS), so the listener's own answer comes first. */
export const SLACK_VIEW_SUBMISSION_BUDGET_MS = SLACK_LISTENER_BUDGET_MS;
export const SLACK_SUGGESTION_BUDGET_MS = SLACK_LISTENER_BUDGET_MS;

/** Values of a submitted view, by block id (= field name). Checkboxes give 'true' / 'false'. */
export function readViewValues(state: ViewState | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [blockId, actions] of Object.entries(state?.values ?? {})) {
    for (const el of Object.values(actions)) {
      if (el.type === 'checkboxes') out[blockId] = Array.isArray(el.selected_options) && el.selected_options.length ? 'true' : 'false';
      else if (el.selected_option) out[blockId] = String(el.selected_option.value ?? '');
      else if (typeof el.value === 'string') out[blockId] = el.value;
      else if (el.value === null || el.value === undefined) out[blockId] = '';
    }
  }
  return out;
}

/** Keeps only errors Slack can place (a known block id); others go onto the first field. */
function placeErrors(errors: Record<string, string>, blockIds: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  const stray: string[] = [];
  for (const [k, v] of Object.entries(errors)) {
    if (blockIds.includes(k)) out[k] = truncate(v, SLACK_MAX_INPUT_ERROR);
    else stray.push(v);
  }
  if (stray.length && blockIds.length) {
    const first = blockIds[0];
    out[first] = truncate([out[first], ...stray].filter(Boolean).join(' '), SLACK_MAX_INPUT_ERROR);
  }
  return out;
}

export function registerListeners(deps: {
  app: BoltApp;
  log: Logger;
  delivery: ReplyDelivery;
  groupsOf: (userId: string) => Promise<string[]>;
  nodeNames: (prefix: string) => Promise<Array<{ name: string; nodeId: string; status: string }>>;
  /** The slash command (default `/rln`). */
  command?: string;
  viewSubmissionBudgetMs?: number;
  suggestionBudgetMs?: number;
}): void {
  const { app, log, groupsOf, nodeNames } = deps;
  const { sendMessage, deliver, run } = deps.delivery;
  const opts = deps;

  // Slash command: ack at once, then work, then answer through response_url / views.open.
  app.command(opts.command ?? '/rln', async ({ ack, command, respond }) => {
    await ack();
    const actor: Actor = {
      platform: 'slack',
      userId: command.user_id,
      displayName: command.user_name,
      groups: await groupsOf(command.user_id),
    };
    const place: Place = { platform: 'slack', channelId: command.channel_id, workspaceId: command.team_id };
    const reply = await run({ via: 'typed', actor, place, text: readCommandText(command.text ?? '') });
    await deliver(reply, {
      respond,
      triggerId: command.trigger_id,
      origin: { channelId: command.channel_id, workspaceId: command.team_id },
      userId: command.user_id,
    });
  });

  // Clicks: the action_id is the stored button id.
  app.action({ type: 'block_actions' }, async ({ ack, body, action, respond }) => {
    await ack();
    const a = action as ClickAction;
    if (a.type !== 'button' || typeof a.action_id !== 'string') return;
    const b = body as ClickBody;
    const channelId: string = b.channel?.id ?? b.container?.channel_id ?? b.user?.id;
    const threadId: string | undefined = b.message?.thread_ts ?? b.container?.thread_ts;
    const actor: Actor = {
      platform: 'slack',
      userId: b.user.id,
      displayName: b.user.username ?? b.user.name,
      groups: await groupsOf(b.user.id),
    };
    const place: Place = { platform: 'slack', channelId, workspaceId: b.team?.id, threadId };
    const reply = await run({ via: 'button', actor, place, buttonId: a.action_id });
    await deliver(reply, {
      respond: b.response_url ? respond : undefined,
      triggerId: b.trigger_id,
      origin: { channelId, threadId, workspaceId: b.team?.id },
      userId: b.user.id,
    });
  });

  // Modal submit: refuse in place (response_action: errors) when the dispatcher says so in time.
  // Every path acks exactly once, within the budget, whatever fails after it.
  app.view({ type: 'view_submission' }, async ({ ack, body, view }) => {
    const b = body as SubmitBody;
    let acked = false;
    const ackOnce = async (response?: Record<string, unknown>) => {
      if (acked) return;
      acked = true;
      await ack(response as never);
    };
    const origin: ModalOrigin = readModalOrigin(view.private_metadata) ?? { channelId: b.user.id };
    const route: ReplyRoute = { origin, userId: b.user.id, triggerId: b.trigger_id };
    try {
      const values = readViewValues(view.state);
      const place: Place = {
        platform: 'slack',
        channelId: origin.channelId,
        workspaceId: origin.workspaceId ?? b.team?.id,
        threadId: origin.threadId,
      };
      // The budget covers the group look-up too: the ack is due within 3 s of Slack sending this.
      const pending = groupsOf(b.user.id).then((groups) => {
        const actor: Actor = { platform: 'slack', userId: b.user.id, displayName: b.user.username ?? b.user.name, groups };
        return run({ via: 'dialog', actor, place, dialogId: view.callback_id, values });
      });
      const first = await within(pending, opts.viewSubmissionBudgetMs ?? SLACK_VIEW_SUBMISSION_BUDGET_MS);
      if (first === LATE) {
        await ackOnce();
        await deliver(await pending, route);
        return;
      }
      if (first.kind === 'dialog_errors') {
        const blockIds = ((view.blocks ?? []) as Array<{ type?: string; block_id?: string }>)
          .filter((x) => x.type === 'input')
          .map((x) => String(x.block_id));
        await ackOnce({ response_action: 'errors', errors: placeErrors(first.errors, blockIds) });
        return;
      }
      if (first.kind === 'dialog') {
        let next: Record<string, unknown>;
        try {
          next = dialogToModal(first.dialog, origin);
        } catch (e) {
          log.error({ err: e, dialog: first.dialog.id }, 'could not render the next dialog as a Slack modal');
          await ackOnce();
          await sendMessage(
            plainMessage('The next step needs a form that Slack cannot show (it broke a Block Kit limit). The details are in the bot log.'),
            'private',
            route,
          );
          return;
        }
        await ackOnce({ response_action: 'update', view: next });
        return;
      }
      await ackOnce();
      await deliver(first, route);
    } catch (e) {
      log.error({ err: e }, 'handling a Slack modal submission failed');
      if (!acked) {
        await ackOnce();
        await deliver(
          {
            kind: 'message',
            visibility: 'private',
            message: plainMessage('Something went wrong on our side; it is in the bot log. Try again.'),
          },
          route,
        );
      }
    }
  });

  // External select: node names wherever a dialog asks for a node.
  app.options({ type: 'block_suggestion' }, async ({ ack, body }) => {
    const query = String((body as { value?: string }).value ?? '').trim();
    // The options answer is the ack itself: due within 3 s, so a slow look-up answers with none.
    let nodes: Awaited<ReturnType<typeof nodeNames>> = [];
    try {
      const found = await within(nodeNames(query), opts.suggestionBudgetMs ?? SLACK_SUGGESTION_BUDGET_MS);
      if (found === LATE) log.warn({ query }, 'node name suggestions took too long; answered with none');
      else nodes = found;
    } catch (e) {
      log.warn({ err: e }, 'node name suggestions failed');
    }
    await ack({
      options: nodes
        // A value cannot be cut without breaking it: a name too long for Slack is not offered.
        .filter((n) => n.name.length <= SLACK_MAX_OPTION_VALUE)
        .slice(0, SLACK_MAX_OPTIONS)
        .map((n) => ({
          text: { type: 'plain_text', text: truncate(`${n.name} (${n.status})`, SLACK_MAX_OPTION_TEXT) },
          value: n.name,
        })),
    } as never);
  });
}
