/**
 * Incidents in a channel, as the executor carries out the plan's incident actions: opening
 * one (the message with Restart, Logs, Acknowledge), updating it in place with a line in its
 * thread, and refreshing it when acknowledged. The plan (plan-round.ts) decided what; this
 * file posts and keeps the store in step with what the channel shows.
 */
import { PostError } from '../vocabulary/index.js';
import type { Message, Platform } from '../vocabulary/index.js';
import type { Logger } from '../log.js';
import type { IncidentRow, NotifyStore } from '../store/index.js';
import type { RoundAction } from './plan-round.js';
import { incidentMessage, threadLine } from './render-notifications.js';

/** The channel's chat calls, paced and counted by the executor. */
export interface ChannelIo {
  post(message: Message, threadId?: string | null): Promise<{ messageId: string; threadId?: string }>;
  update(messageId: string, message: Message): Promise<void>;
}

export interface IncidentContext {
  store: NotifyStore;
  platform: Platform;
  channelId: string;
  io: ChannelIo;
  now: () => number;
  log: Logger;
}

type Action<K extends RoundAction['kind']> = Extract<RoundAction, { kind: K }>;

/** Refreshes an acknowledged incident's message and says who acknowledged it in the thread. */
export async function refreshAcknowledged(ctx: IncidentContext, a: Action<'ack'>): Promise<void> {
  if (!a.incident) return;
  // Read again: an earlier action of the round may have learned the incident's thread.
  const inc = (await ctx.store.incident(a.incident.id)) ?? a.incident;
  await ctx.io.update(inc.message_id!, incidentMessage(inc, ctx.now()));
  if (a.note) await rememberThread(ctx.store, inc, await ctx.io.post(threadLine(a.note), inc.thread_id ?? inc.message_id));
}

/** Posts the incident message (a new incident, or one whose message was never posted or is gone). */
export async function openIncident(ctx: IncidentContext, a: Action<'open-incident'>): Promise<void> {
  const { store } = ctx;
  const now = ctx.now();
  const plan = a.incident;
  const created = 'create' in plan;
  const id = created
    ? await store.insertIncident({ platform: ctx.platform, channel_id: ctx.channelId, ...plan.create, message_id: null, thread_id: null })
    : plan.id;
  if (!created) await store.updateIncident(id, plan.patch);
  try {
    const res = await ctx.io.post(incidentMessage((await store.incident(id))!, now));
    await store.setIncidentMessage(id, res.messageId, res.threadId ?? null);
    ctx.log.info({ incident: id, nodeId: a.nodeId, channel: ctx.channelId }, 'incident opened');
  } catch (err) {
    if (created) await store.deleteIncident(id);
    throw err;
  }
}

/**
 * Edits the incident message in place and adds a line to its thread. The incident is patched
 * in the store only once the posts went through, so a retried round computes the same changes.
 */
export async function updateIncident(ctx: IncidentContext, a: Action<'update-incident'>): Promise<void> {
  const { store } = ctx;
  const now = ctx.now();
  const inc = (await store.incident(a.incident.id)) ?? a.incident;
  if (a.edit) {
    try {
      await ctx.io.update(inc.message_id!, incidentMessage({ ...inc, ...a.patch }, now));
    } catch (err) {
      if (!(err instanceof PostError) || err.kind !== 'permanent') throw err;
      // The incident message cannot be edited (deleted?): post a fresh one on the retry.
      await store.clearIncidentMessage(inc.id);
      ctx.log.warn({ incident: inc.id, reason: err.message }, 'incident message cannot be updated; it will be posted again');
      throw new PostError('transient', `incident #${inc.id} message is gone; reposting`);
    }
  }
  try {
    await rememberThread(store, inc, await ctx.io.post(threadLine(a.line, a.tone), inc.thread_id ?? inc.message_id));
  } catch (err) {
    // The message itself was updated in place; a thread that refuses the line (archived, locked)
    // must not leave the incident open in the store while its message says otherwise.
    if (!(err instanceof PostError) || err.kind !== 'permanent' || !a.edit) throw err;
    ctx.log.warn({ incident: inc.id, reason: err.message }, 'incident thread line refused; the incident message was updated');
  }
  await store.updateIncident(inc.id, a.patch);
}

/** Discord creates a thread on the first reply: keep its id so later replies go straight into it. */
async function rememberThread(store: NotifyStore, inc: IncidentRow, res: { threadId?: string }): Promise<void> {
  if (res.threadId && res.threadId !== inc.thread_id && inc.message_id) {
    await store.setIncidentMessage(inc.id, inc.message_id, res.threadId);
    inc.thread_id = res.threadId;
  }
}
