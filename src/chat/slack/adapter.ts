/**
 * The Slack adapter: a Bolt app whose listeners only translate. A slash command, a click or a
 * modal submit is acknowledged first, then handed to the dispatcher, and the Reply goes back
 * through response_url (respond), views.open or the Web API.
 *
 * Socket Mode when SLACK_APP_TOKEN is set; otherwise HTTP mode on the bot's fastify server at
 * POST /slack/events (see ./fastify-receiver.ts).
 *
 * Role checks by Slack user group: actor.groups comes from one cached `usergroups.list` call
 * (./create-group-resolver.ts); without the usergroups:read scope it is empty.
 */
import { App as BoltAppClass, SocketModeReceiver, type App as BoltApp, type RespondFn, type Receiver } from '@slack/bolt';
import type { FastifyPluginAsync } from 'fastify';
import type { Config } from '../../config.js';
import type { ChatPoster } from '../../vocabulary/index.js';
import type { Message } from '../../vocabulary/index.js';
import type { Actor, Place, Role } from '../../vocabulary/index.js';
import type { Dialog, Dispatcher, Invocation, Reply } from '../../engine/index.js';
import type { Logger } from '../../log.js';
import type { Metrics } from '../../metrics.js';
import { LATE, within, type LinkStatus } from '../../vocabulary/index.js';
import { slackLink } from './slack-link.js';
import { createSlackPoster } from './create-slack-poster.js';
import { dialogToModal, readModalOrigin, type ModalOrigin } from './dialog-to-modal.js';
import { FastifyReceiver, SLACK_LISTENER_BUDGET_MS } from './fastify-receiver.js';
import type { ReplayGuard } from '../../http/index.js';
import { createGroupResolver } from './create-group-resolver.js';
import { SLACK_MAX_INPUT_ERROR, SLACK_MAX_OPTIONS, SLACK_MAX_OPTION_TEXT, SLACK_MAX_OPTION_VALUE } from './limits.js';
import { toBlockKit, truncate, type BlockKitMessage } from './render.js';
import { toBoltLogger } from './to-bolt-logger.js';
import { createAppHome } from './app-home.js';
import type { ClickAction, ClickBody, SubmitBody, ViewState } from './payload-views.js';
import { readCommandText } from './read-command-text.js';

export interface SlackAdapter {
  app: BoltApp;
  poster: ChatPoster;
  /** HTTP mode: `POST /slack/events`, to register on the bot's one fastify server. */
  routes?: FastifyPluginAsync;
  /** Checks the token and connects (Socket Mode); Slack unreachable leaves the link retrying, a refused token throws. */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Where the connection to Slack is, for /healthz. */
  link(): LinkStatus;
  /** Publishes the App Home tab again for the users who opened it lately (throttled per user). */
  refreshHome(): void;
}

export interface SlackAdapterOptions {
  config: Config;
  dispatcher: Dispatcher;
  logger: Logger;
  metrics?: Metrics;
  /** Node names for the external select; default dispatcher.suggestNodes. */
  nodeNames?: (prefix: string) => Promise<Array<{ name: string; nodeId: string; status: string }>>;
  /** The slash command (default `/rln`). */
  command?: string;
  /**
   * Socket Mode: how long to wait for a pong, and the step of the reconnect delay after Slack asks
   * the client to reconnect (Bolt's default 5000 ms).
   */
  socketPingTimeoutMs?: number;
  /** Resolve users' Slack user groups for `slack-group:` grants (default true; needs usergroups:read). */
  userGroups?: boolean;
  /** How long a modal submit waits for the dispatcher before acking and answering later (default SLACK_LISTENER_BUDGET_MS, 2000 ms). */
  viewSubmissionBudgetMs?: number;
  /** How long an external select waits for node names before answering with none (default 2000 ms, below the receiver's 2.5 s fallback; Slack allows 3 s). */
  suggestionBudgetMs?: number;
  /** HTTP mode: signed requests already accepted (one backed by the database survives a restart). */
  replays?: ReplayGuard;
  /** The user's role, shown on the App Home tab. */
  roleOf?: (actor: Actor) => Promise<Role>;
  /** At most one App Home publish per user this often (default 5 s). */
  homeThrottleMs?: number;
}

/** Slack waits 3 s for an ack. Below the receiver's fallback ack (SLACK_ACK_FALLBACK_MS), so the listener's own answer comes first. */
export const SLACK_VIEW_SUBMISSION_BUDGET_MS = SLACK_LISTENER_BUDGET_MS;
export const SLACK_SUGGESTION_BUDGET_MS = SLACK_LISTENER_BUDGET_MS;

/** Explicit, short retries for the app's own calls (views.open, postEphemeral, respond is separate). */
export const SLACK_RETRY_CONFIG = { retries: 2, factor: 2, minTimeout: 100, maxTimeout: 1000 };

/** Where and how a Reply is delivered. */
interface ReplyRoute {
  respond?: RespondFn;
  triggerId?: string;
  origin: ModalOrigin;
  userId: string;
}

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

const plainMessage = (text: string): Message => ({ blocks: [{ type: 'text', text }], tone: 'warning' });

export function createSlackAdapter(opts: SlackAdapterOptions): SlackAdapter {
  const { config, dispatcher } = opts;
  const log = opts.logger;
  const token = config.SLACK_BOT_TOKEN;
  if (!token) throw new Error('SLACK_BOT_TOKEN is required for the Slack adapter');
  const boltLogger = toBoltLogger(log);
  const slackApiUrl = config.SLACK_API_URL ? config.SLACK_API_URL.replace(/\/?$/, '/') : undefined;
  // Fresh objects each: Bolt and the socket-mode client write into the clientOptions they get.
  const clientOptions = () => ({ slackApiUrl, retryConfig: { ...SLACK_RETRY_CONFIG }, timeout: 10_000 });

  let receiver: Receiver;
  let fastifyReceiver: FastifyReceiver | undefined;
  let socketReceiver: SocketModeReceiver | undefined;
  if (config.SLACK_APP_TOKEN) {
    receiver = socketReceiver = new SocketModeReceiver({
      appToken: config.SLACK_APP_TOKEN,
      logger: boltLogger,
      clientPingTimeout: opts.socketPingTimeoutMs,
      // The link reconnects (./slack-link.ts): the client's own reconnect has no bound on its delay,
      // and its failures would end the process.
      autoReconnectEnabled: false,
      installerOptions: { clientOptions: clientOptions() },
    });
  } else if (config.SLACK_SIGNING_SECRET) {
    fastifyReceiver = new FastifyReceiver({ signingSecret: config.SLACK_SIGNING_SECRET, logger: log, replays: opts.replays });
    receiver = fastifyReceiver;
  } else {
    throw new Error('Slack needs SLACK_APP_TOKEN (Socket Mode) or SLACK_SIGNING_SECRET (HTTP mode)');
  }

  // deferInitialization: otherwise Bolt calls auth.test in its constructor and a refused token
  // becomes an unhandled rejection; start() runs app.init() and reports a clear reason instead.
  const app = new BoltAppClass({ token, receiver, logger: boltLogger, clientOptions: clientOptions(), deferInitialization: true });
  app.error(async (e) => {
    log.error({ err: e }, 'Slack listener error');
  });
  const groupResolver = opts.userGroups === false ? undefined : createGroupResolver({ client: app.client, logger: log });
  const groupsOf = async (userId: string) => (groupResolver ? groupResolver.groupsOf(userId) : []);
  const nodeNames = opts.nodeNames ?? ((prefix: string) => dispatcher.suggestNodes(prefix));

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

  const poster = createSlackPoster({ token, slackApiUrl, logger: log });
  const link = slackLink({
    app,
    mode: config.slack.mode === 'socket' ? 'socket' : 'http',
    receiver: socketReceiver,
    apiUrlSet: Boolean(config.SLACK_API_URL),
    log,
  });
  const home = createAppHome({ app, dispatcher, logger: log, groupsOf, roleOf: opts.roleOf, throttleMs: opts.homeThrottleMs });

  return {
    app,
    poster,
    routes: fastifyReceiver?.routes,
    start: () => link.start(),
    link: () => link.status(),
    refreshHome: () => home.refreshAll(),
    async stop() {
      home.stop();
      await link.stop();
      if (!socketReceiver) await app.stop();
    },
  };
}
