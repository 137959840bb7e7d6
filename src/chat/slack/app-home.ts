/**
 * Slack's App Home tab: the status dashboard (the `status` command, run through the dispatcher
 * as the user who opened the tab, so it shows what they may read) with their role and quick
 * actions, published with views.publish on app_home_opened.
 *
 * It is published again when a watched node changes (refreshAll), for the users who opened the
 * tab lately, throttled per user: a storm of events publishes at most once every `throttleMs`
 * per user, the last change included.
 */
import type { App as BoltApp } from '@slack/bolt';
import type { Message } from '../../vocabulary/index.js';
import type { Actor, Role } from '../../vocabulary/index.js';
import type { Dispatcher } from '../../engine/index.js';
import type { Logger } from '../../log.js';
import { toBlockKit, type SlackBlock } from './render.js';

/** Slack's limit of blocks in a Home tab view. */
export const SLACK_MAX_HOME_BLOCKS = 100;
/** At most one publish per user this often (default). */
export const HOME_THROTTLE_MS = 5_000;
/** Users refreshed on node changes: those who opened the tab within this time. */
export const HOME_ACTIVE_MS = 24 * 3_600_000;
const MAX_HOME_USERS = 500;

const ROLE_WORDS: Record<Role, string> = {
  read: 'read: you can see nodes, balances and reports',
  operate: 'operate: you can also start, stop and pay from nodes',
  admin: 'admin: you can do everything, including destroying nodes and granting roles',
};

export interface AppHomeOptions {
  app: BoltApp;
  dispatcher: Dispatcher;
  logger: Logger;
  groupsOf(userId: string): Promise<string[]>;
  /** The user's role, shown at the top; omitted when not given. */
  roleOf?: (actor: Actor) => Promise<Role>;
  throttleMs?: number;
}

export interface AppHome {
  /** Publishes the tab again for every user who opened it lately (throttled per user). */
  refreshAll(): void;
  stop(): void;
}

interface HomeUser {
  openedAt: number;
  lastPublishAt: number;
  timer?: NodeJS.Timeout;
}

const QUICK_ACTIONS: Message = {
  blocks: [],
  buttons: [
    { label: 'Balance report (all)', command: 'report balance', args: { node: 'all' } },
    { label: 'Channel report (all)', command: 'report channels', args: { node: 'all' } },
    { label: 'My watches', command: 'watch list' },
    { label: 'Help', command: 'help' },
  ],
};

export function createAppHome(o: AppHomeOptions): AppHome {
  const throttleMs = o.throttleMs ?? HOME_THROTTLE_MS;
  const homeUsers = new Map<string, HomeUser>();
  let stopped = false;

  async function view(userId: string): Promise<Record<string, unknown>> {
    const actor: Actor = { platform: 'slack', userId, groups: await o.groupsOf(userId) };
    const reply = await o.dispatcher.dispatch({ via: 'typed', actor, place: { platform: 'slack', channelId: userId }, text: 'status' });
    const dashboard: Message =
      reply.kind === 'message' ? reply.message : { blocks: [{ type: 'text', text: 'The dashboard could not be shown.' }] };
    const rendered = toBlockKit(dashboard, { nativeTables: false });
    const quick = toBlockKit(await o.dispatcher.prepareMessage(QUICK_ACTIONS));
    const role = await o.roleOf?.(actor);
    const intro: SlackBlock[] = [
      { type: 'context', elements: [{ type: 'mrkdwn', text: role ? `Your role: *${ROLE_WORDS[role]}*.` : 'Your nodes at a glance.' }] },
    ];
    const blocks: SlackBlock[] = [...rendered.blocks, ...(rendered.attachments ?? []).flatMap((a) => a.blocks)];
    const header = blocks[0]?.type === 'header' ? [blocks.shift()!] : [];
    const all = [
      ...header,
      ...intro,
      ...blocks,
      { type: 'divider' },
      { type: 'context', elements: [{ type: 'mrkdwn', text: 'Quick actions (answers come here, in Messages):' }] },
      ...quick.blocks,
    ];
    return { type: 'home', blocks: all.slice(0, SLACK_MAX_HOME_BLOCKS) };
  }

  async function publish(userId: string): Promise<void> {
    const u = homeUsers.get(userId);
    if (u) u.lastPublishAt = Date.now();
    try {
      await o.app.client.views.publish({ user_id: userId, view: (await view(userId)) as never });
    } catch (e) {
      o.logger.warn({ err: e, user: userId }, 'could not publish the App Home tab');
    }
  }

  /** Publishes now, or once the user's throttle window ends (one publish for a whole storm). */
  function schedule(userId: string): void {
    const u = homeUsers.get(userId);
    if (!u || stopped || u.timer) return;
    const wait = u.lastPublishAt + throttleMs - Date.now();
    if (wait <= 0) {
      void publish(userId);
      return;
    }
    u.timer = setTimeout(() => {
      u.timer = undefined;
      void publish(userId);
    }, wait);
    u.timer.unref?.();
  }

  o.app.event('app_home_opened', async ({ event }) => {
    if ((event as { tab?: string }).tab && (event as { tab?: string }).tab !== 'home') return;
    const userId = event.user;
    const known = homeUsers.get(userId);
    if (!known) {
      if (homeUsers.size >= MAX_HOME_USERS) {
        const oldest = [...homeUsers.entries()].sort((a, b) => a[1].openedAt - b[1].openedAt)[0];
        if (oldest) {
          clearTimeout(oldest[1].timer);
          homeUsers.delete(oldest[0]);
        }
      }
      homeUsers.set(userId, { openedAt: Date.now(), lastPublishAt: 0 });
    } else known.openedAt = Date.now();
    schedule(userId);
  });

  return {
    refreshAll() {
      const now = Date.now();
      for (const [userId, u] of homeUsers) {
        if (now - u.openedAt > HOME_ACTIVE_MS) {
          clearTimeout(u.timer);
          homeUsers.delete(userId);
        } else schedule(userId);
      }
    },
    stop() {
      stopped = true;
      for (const u of homeUsers.values()) clearTimeout(u.timer);
    },
  };
}
