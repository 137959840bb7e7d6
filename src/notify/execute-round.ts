/**
 * The executor of an outbox round: carries out the plan's actions in order, each chat call in
 * the channel's pacer slot, and records the outcome. A row is marked sent once the action it
 * belongs to went through; the first failure ends the round and is recorded here:
 *   - 429 waits Retry-After (the channel is held until then);
 *   - 5xx/network back off exponentially, up to maxAttempts, then the rows fail;
 *   - a permanent refusal fails the rows of the message that was refused, the others wait;
 *   - channel_gone pauses the channel's watches and tells the admins (escalation.ts).
 * readRoundState reads from the store what planRound needs.
 */
import { letThrough, PostError, type ChatPoster } from '../vocabulary/index.js';
import type { Message, Platform } from '../vocabulary/index.js';
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics.js';
import type { IncidentRow, NodeStatusState, NotifyStore, OutboxEventRow } from '../store/index.js';
import type { Escalation } from './escalation.js';
import { openIncident, refreshAcknowledged, updateIncident, type ChannelIo, type IncidentContext } from './incidents.js';
import type { ChannelPacer } from './pacer.js';
import { groupByNode, isActivity, isStoredMessage, roundRows, type RoundAction, type RoundState, type StatusEvent } from './plan-round.js';

export interface RoundContext {
  store: NotifyStore;
  platform: Platform;
  channelId: string;
  poster: ChatPoster;
  pacer: ChannelPacer;
  /** Gives the buttons their stored ids (async: the ids are stored in the database). */
  prepareMessage: (m: Message) => Message | Promise<Message>;
  now: () => number;
  log: Logger;
  metrics?: Metrics;
  /** Runs in each call's slot, just before it (replicas: the channel's lease is still ours; throws if not). */
  beforeCall?: () => Promise<void>;
}

export interface RetryPolicy {
  baseDelayMs: number;
  maxDelayMs: number;
  maxAttempts: number;
}

/** Rows whose previous status is read from the events table between two passes of the event loop. */
const NODES_PER_SLICE = 10;

/**
 * What planRound needs from the store, for the rows of this round: the channel's open
 * incidents in one query, and each node's previous status and newest known status event. The
 * previous status is on the group's first event row (prev_status, written by the router); the
 * newest is in the node's row (notify_nodes), read for every node of the round in one query.
 * A row without prev_status (stored before it was kept) reads it from the events table, with
 * the event loop let through every NODES_PER_SLICE such reads.
 */
export async function readRoundState(
  store: NotifyStore,
  platform: Platform,
  channelId: string,
  due: OutboxEventRow[],
  now: number,
  limits: Pick<RoundState, 'maxIncidentsPerRound' | 'digestMaxNodes'>,
): Promise<RoundState> {
  const rows = roundRows(due);
  const previousStatus = new Map<string, string | undefined>();
  const openIncidents = new Map<string, IncidentRow>();
  const recentStatusEvents = new Map<string, StatusEvent[]>();
  const incidents = new Map<number, IncidentRow>();
  for (const r of rows) {
    if (r.event_id !== null || r.incident_id === null || incidents.has(r.incident_id)) continue;
    const inc = await store.incident(r.incident_id);
    if (inc) incidents.set(inc.id, inc);
  }
  const groups = groupByNode(rows);
  if (!groups.length) return { now, previousStatus, openIncidents, recentStatusEvents, incidents, ...limits };
  const inRound = new Set(groups.map((g) => g.nodeId));
  for (const inc of await store.openIncidentsOf(platform, channelId)) if (inRound.has(inc.node_id)) openIncidents.set(inc.node_id, inc);
  const withStatus = groups.filter((g) => g.rows.some((r) => r.ev_status)).map((g) => g.nodeId);
  const nodes = withStatus.length ? await store.nodeStates(withStatus) : new Map<string, NodeStatusState>();
  const inTx = store.db.inTransaction;
  let lookups = 0;
  for (const g of groups) {
    // The planner reads the node's statuses from its rows other than activity (plan-round.ts).
    const first = g.rows.find((r) => !isActivity(r));
    if (first) {
      if (first.prev_status !== null && first.prev_status !== undefined) previousStatus.set(g.nodeId, first.prev_status || undefined);
      else {
        if (lookups > 0 && lookups % NODES_PER_SLICE === 0 && !inTx) await letThrough();
        lookups++;
        previousStatus.set(g.nodeId, await store.previousStatus(g.nodeId, first.event_id!));
      }
    }
    const n = nodes.get(g.nodeId);
    if (n?.newest_id != null && n.newest_status !== null && n.newest_event_ts !== null)
      recentStatusEvents.set(g.nodeId, [{ id: n.newest_id, status: n.newest_status, event_ts: n.newest_event_ts }]);
  }
  return { now, previousStatus, openIncidents, recentStatusEvents, incidents, ...limits };
}

/** The round's failure, if it had one: what it had not sent, and the rows of the action that failed. */
export interface RoundFailure {
  err: unknown;
  unsent: OutboxEventRow[];
  current: OutboxEventRow[];
  /**
   * Rows whose message went out but whose record as sent failed (the database refused it): they
   * are not in `unsent`, and must never be posted again (the worker records them before the
   * channel's next round).
   */
  unrecorded?: OutboxEventRow[];
}

/** Carries out `actions` (planned from `rows`) in order; stops at the first failure and returns it. */
export async function executeRound(ctx: RoundContext, rows: OutboxEventRow[], actions: RoundAction[]): Promise<RoundFailure | undefined> {
  const { store, platform, channelId, poster, pacer, metrics } = ctx;
  const unsent = new Map(rows.map((r) => [r.id, r]));
  // The labelled child once: a round observes ~1,000 latencies, each would hash the labels again.
  const latency = metrics?.deliveryLatency.labels({ platform });
  // The action being carried out, and how many posts it made: each post's key (see postKey).
  let current: { action: RoundAction; posts: number } | undefined;
  const io: ChannelIo = {
    async post(message, threadId) {
      const prepared = await ctx.prepareMessage(message);
      const key = current ? postKey(platform, channelId, current.action, current.posts++) : undefined;
      const res = await pacer.run(platform, channelId, async () => {
        await ctx.beforeCall?.();
        return poster.post({ channelId, ...(threadId ? { threadId } : {}) }, prepared, key ? { key } : undefined);
      });
      metrics?.deliveries.inc({ platform, outcome: 'ok' });
      return res;
    },
    async update(messageId, message) {
      const prepared = await ctx.prepareMessage(message);
      await pacer.run(platform, channelId, async () => {
        await ctx.beforeCall?.();
        return poster.update({ channelId, messageId }, prepared);
      });
      metrics?.deliveries.inc({ platform, outcome: 'ok' });
    },
  };
  const incidents: IncidentContext = { store, platform, channelId, io, now: ctx.now, log: ctx.log };
  for (const a of actions) {
    current = { action: a, posts: 0 };
    try {
      await run(a, io, incidents);
    } catch (err) {
      return { err, unsent: [...unsent.values()], current: a.rows.filter((r) => unsent.has(r.id)) };
    }
    const now = ctx.now();
    try {
      await store.markSent(
        a.rows.map((r) => r.id),
        now,
      );
    } catch (err) {
      // The chat shows the message: its rows are not unsent, whatever the database says now.
      for (const r of a.rows) unsent.delete(r.id);
      return { err, unsent: [...unsent.values()], current: [], unrecorded: a.rows };
    }
    for (const r of a.rows) {
      unsent.delete(r.id);
      latency?.observe(Math.max(0, now - (r.ev_received_at ?? r.created_at)) / 1000);
    }
  }
  return undefined;
}

/**
 * The key of the n-th post of an action (ChatPoster.post's `key`): its rows' ids, which a retry
 * of the action keeps, so a post given up on before its answer and made anyway is recognised
 * when the retry sends it again (Discord's nonce), instead of being posted twice. Any other post
 * has other rows (a digest's parts, a message's files: rows of their own) or another n (an
 * incident's message and its thread line). undefined for an action without rows.
 */
export function postKey(platform: Platform, channelId: string, a: RoundAction, n: number): string | undefined {
  if (!a.rows.length) return undefined;
  const ids = a.rows.map((r) => r.id).sort((x, y) => x - y);
  return `${platform}:${channelId}:${a.kind}:${ids.join(',')}:${n}`;
}

async function run(a: RoundAction, io: ChannelIo, incidents: IncidentContext): Promise<void> {
  switch (a.kind) {
    case 'post-stored':
      await io.post(JSON.parse(a.json ?? '{"blocks":[]}') as Message, a.threadId);
      return;
    case 'post':
      await io.post(a.message);
      return;
    case 'ack':
      return refreshAcknowledged(incidents, a);
    case 'open-incident':
      return openIncident(incidents, a);
    case 'update-incident':
      return updateIncident(incidents, a);
  }
}

/**
 * Records a failed round. `unsent`: what the round had not posted yet; `current`: the rows of
 * the message that failed. A permanent refusal is about that message: only its rows fail.
 */
export async function recordFailure(ctx: RoundContext, f: RoundFailure, retry: RetryPolicy, escalation: Escalation): Promise<void> {
  const { store, platform, channelId, metrics, log } = ctx;
  const now = ctx.now();
  const ids = f.unsent.map((r) => r.id);
  const why = f.err instanceof Error ? f.err.message : String(f.err);
  const kind = f.err instanceof PostError ? f.err.kind : 'transient';
  if (!ids.length && kind !== 'channel_gone') return;
  if (kind === 'rate_limited') {
    const wait = (f.err as PostError).retryAfterMs ?? retry.baseDelayMs;
    await store.postpone(ids, now + wait, `rate limited: ${why}`, false);
    await postponeLaterStored(ctx, f.unsent, now + wait);
    ctx.pacer.holdUntil(platform, channelId, now + wait);
    metrics?.deliveries.inc({ platform, outcome: 'rate_limited' });
    log.warn({ channel: channelId, platform, retryAfterMs: wait }, 'rate limited; retrying after Retry-After');
    return;
  }
  if (kind === 'channel_gone') {
    await escalation.channelGone(platform, channelId, why);
    return;
  }
  if (kind === 'permanent') {
    const refused = f.current.map((r) => r.id);
    await store.markState(refused, 'failed', why);
    await failFilesOf(ctx, f.current, why);
    metrics?.deliveries.inc({ platform, outcome: 'failed' });
    log.error({ channel: channelId, platform, rows: refused.length, reason: why }, 'notification refused by the platform; not retried');
    await escalation.deliveryFailed(platform, channelId, f.current, why);
    return;
  }
  metrics?.deliveries.inc({ platform, outcome: 'retry' });
  const giveUp = f.unsent.filter((r) => r.attempts + 1 >= retry.maxAttempts);
  const again = f.unsent.filter((r) => r.attempts + 1 < retry.maxAttempts);
  if (giveUp.length) {
    await store.markState(
      giveUp.map((r) => r.id),
      'failed',
      `gave up after ${retry.maxAttempts} attempts: ${why}`,
    );
    await failFilesOf(ctx, giveUp, why);
    metrics?.deliveries.inc({ platform, outcome: 'failed' });
    log.error({ channel: channelId, platform, rows: giveUp.length, reason: why }, 'notification failed too many times; given up');
    await escalation.deliveryFailed(platform, channelId, giveUp, why);
  }
  if (again.length) {
    const attempts = Math.min(...again.map((r) => r.attempts)) + 1;
    const delay = Math.min(retry.maxDelayMs, retry.baseDelayMs * 2 ** (attempts - 1));
    await store.postpone(
      again.map((r) => r.id),
      now + delay,
      why,
      true,
    );
    await postponeLaterStored(ctx, again, now + delay);
    log.warn({ channel: channelId, platform, attempt: attempts, delayMs: delay, reason: why }, 'posting failed; retrying with backoff');
  }
}

/**
 * A stored message that waits keeps the channel's later stored messages behind it (the rows of
 * a round of stored messages are one row): its files, queued as the next row, never go first.
 */
async function postponeLaterStored(ctx: RoundContext, rows: OutboxEventRow[], until: number): Promise<void> {
  const stored = rows.filter(isStoredMessage);
  if (stored.length) await ctx.store.postponeLaterStored(ctx.platform, ctx.channelId, Math.min(...stored.map((r) => r.id)), until);
}

/** The files of a message that failed for good are not posted alone (their row: `<dedupe key>:files`). */
async function failFilesOf(ctx: RoundContext, rows: OutboxEventRow[], why: string): Promise<void> {
  const keys = rows.flatMap((r) => (r.dedupe_key && !r.dedupe_key.endsWith(':files') ? [`${r.dedupe_key}:files`] : []));
  await ctx.store.failByDedupeKeys(keys, `the message these files belong to failed: ${why}`);
}
