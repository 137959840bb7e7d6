/**
 * Posts the outbox. One round per channel at a time, paced (about one post per
 * `perChannelIntervalMs` per channel); everything waiting for a channel when its turn comes
 * is handled in that round:
 *   - a report/notice row is posted as it is (one per round);
 *   - status events of a node with an open incident update the incident message in place
 *     and add one line in its thread (no new top-level post once acknowledged);
 *   - a node whose latest status is FAILED opens an incident (message with Restart, Logs,
 *     Acknowledge);
 *   - the other events become one message, or one digest naming every node, its latest
 *     status and its flaps when there are several (or when they were held by a mute).
 * Failures: 429 waits Retry-After; 5xx/network back off exponentially up to maxAttempts;
 * channel_gone pauses the channel's watches and tells the admins; permanent fails the rows.
 */
import { PostError, type ChatPoster } from '../core/index.js';
import { formatDuration, statusBadge } from '../core/index.js';
import type { Message } from '../core/index.js';
import type { Platform } from '../core/index.js';
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics.js';
import type { IncidentRow, NotifyStore, OutboxEventRow } from '../store/index.js';
import { digestMessage, eventMessage, incidentMessage, noticeMessage, threadLine, type DigestEntry } from './render-notifications.js';

export interface OutboxWorkerOptions {
  store: NotifyStore;
  posters: Partial<Record<Platform, ChatPoster>>;
  prepareMessage: (m: Message) => Message;
  logger: Logger;
  metrics?: Metrics;
  now: () => number;
  /** Least time between two chat calls (post, edit, thread line) in one channel. Default 1000 ms. */
  perChannelIntervalMs?: number;
  /** The same, per platform (overrides perChannelIntervalMs for that platform). */
  perPlatformIntervalMs?: Partial<Record<Platform, number>>;
  /** Sent rows and old events are deleted after this long. Default 30 days. */
  retentionMs?: number;
  /** A channel's first waiting row waits this long for others to join it. Default 250 ms. */
  coalesceWindowMs?: number;
  retry?: { baseDelayMs?: number; maxDelayMs?: number; maxAttempts?: number };
  /** How often the worker looks for due rows. Default 100 ms. */
  pollMs?: number;
  /** Principals told when a channel is gone (`slack:U…`), named in the notice. */
  admins?: string[];
  /** At most this many incidents are opened in one channel in one round; the rest are in the digest. Default 5. */
  maxIncidentsPerRound?: number;
  /** Nodes per digest message (a larger digest is split). Default 40. */
  digestMaxNodes?: number;
}

interface Group {
  nodeId: string;
  nodeName: string | null;
  rows: OutboxEventRow[];
}

export class OutboxWorker {
  private timer: NodeJS.Timeout | undefined;
  private readonly inflight = new Map<string, Promise<void>>();
  private readonly nextAllowed = new Map<string, number>();
  private readonly warnedNoPoster = new Set<string>();
  private stopped = true;
  private lastPrune = 0;
  private ticking = false;
  private wakeQueued = false;
  private readonly log: Logger;
  private readonly interval: number;
  private readonly window: number;
  private readonly base: number;
  private readonly maxDelay: number;
  private readonly maxAttempts: number;
  readonly pollMs: number;

  constructor(private readonly o: OutboxWorkerOptions) {
    this.log = o.logger.child({ room: 'notify' });
    this.interval = o.perChannelIntervalMs ?? 1000;
    this.window = o.coalesceWindowMs ?? 250;
    this.base = o.retry?.baseDelayMs ?? 1000;
    this.maxDelay = o.retry?.maxDelayMs ?? 5 * 60_000;
    this.maxAttempts = o.retry?.maxAttempts ?? 12;
    this.pollMs = o.pollMs ?? 100;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.timer = setInterval(() => void this.tick(), this.pollMs);
    this.timer.unref?.();
    void this.tick();
  }

  /** Stops looking for work and waits for rounds in flight. Waiting rows stay in the outbox. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await Promise.allSettled([...this.inflight.values()]);
  }

  /**
   * Looks for work now (after an event was stored, a mute ended...). Wakes before the pass
   * runs share it: a burst of webhook events costs one pass, not one per event.
   */
  wake(): void {
    if (this.stopped || this.wakeQueued) return;
    this.wakeQueued = true;
    setImmediate(() => {
      this.wakeQueued = false;
      void this.tick();
    });
  }

  get idle(): boolean {
    return this.inflight.size === 0;
  }

  /** One pass: releases ended mutes, starts a round for every channel that may post now. */
  async tick(): Promise<void> {
    if (this.ticking) return;
    this.ticking = true;
    try {
      const now = this.o.now();
      this.releaseHeld(now);
      for (const ch of this.o.store.pendingChannels()) {
        const key = `${ch.platform}|${ch.channel_id}`;
        if (this.inflight.has(key) || ch.due > now || (this.nextAllowed.get(key) ?? 0) > now) continue;
        if (ch.oldest + this.window > now) continue;
        const poster = this.o.posters[ch.platform as Platform];
        if (!poster) {
          if (!this.warnedNoPoster.has(ch.platform)) {
            this.warnedNoPoster.add(ch.platform);
            this.log.warn({ platform: ch.platform }, `no ${ch.platform} connection: its notifications wait in the outbox until one is configured`);
          }
          continue;
        }
        const round = this.round(ch.platform as Platform, ch.channel_id, poster)
          .catch((err: unknown) => this.log.error({ err, channel: ch.channel_id }, 'notify round failed'))
          .finally(() => {
            this.inflight.delete(key);
            this.wake();
          });
        this.inflight.set(key, round);
      }
      this.o.metrics?.outboxDepth.set(this.o.store.depth());
      if (now - this.lastPrune > 10 * 60_000) {
        this.lastPrune = now;
        // Housekeeping only: every mute check already ignores mutes that have ended.
        this.o.store.deleteExpiredMutes(now);
        const gone = this.o.store.prune(now - (this.o.retentionMs ?? 30 * 24 * 3600_000));
        if (gone.outbox || gone.events) this.log.info(gone, 'old notifications pruned');
      }
    } catch (err) {
      this.log.error({ err }, 'notify tick failed');
    } finally {
      this.ticking = false;
    }
  }

  private releaseHeld(now: number): void {
    const free = this.o.store.releasableHeldIds(now);
    if (free.length) this.o.store.releaseHeld(free, now);
  }

  private async round(platform: Platform, channelId: string, poster: ChatPoster): Promise<void> {
    const { store } = this.o;
    const key = `${platform}|${channelId}`;
    const due = store.duePending(platform, channelId, this.o.now());
    if (!due.length) return;
    // A report/notice row is a round of its own; otherwise the round is the acknowledgements and
    // events (a report waiting behind them gets its own round next), so a failure here only
    // touches the rows this round was about.
    const rows = due[0]!.event_id === null && due[0]!.incident_id === null ? [due[0]!] : due.filter((r) => r.event_id !== null || r.incident_id !== null);
    const unsent = new Map(rows.map((r) => [r.id, r]));
    // The rows whose message is being posted right now: a permanent refusal fails these only.
    let current: OutboxEventRow[] = rows;
    const sent = (list: OutboxEventRow[]) => {
      const now = this.o.now();
      store.markSent(
        list.map((r) => r.id),
        now,
      );
      for (const r of list) {
        unsent.delete(r.id);
        const from = r.ev_received_at ?? r.created_at;
        this.o.metrics?.deliveryLatency.observe({ platform }, Math.max(0, now - from) / 1000);
      }
    };
    // Every call in the channel (post, edit, thread line) waits for the channel's next slot,
    // so a round of several messages is spread out rather than sent as a burst.
    const interval = this.o.perPlatformIntervalMs?.[platform] ?? this.interval;
    // The next slot counts from when a call finished, so the gap holds where the platform sees it.
    const paced = async <T>(call: () => Promise<T>): Promise<T> => {
      const wait = (this.nextAllowed.get(key) ?? 0) - this.o.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      try {
        return await call();
      } finally {
        this.nextAllowed.set(key, Math.max(this.nextAllowed.get(key) ?? 0, this.o.now() + interval));
      }
    };
    const post = async (message: Message, threadId?: string | null) => {
      const res = await paced(() => poster.post({ channelId, ...(threadId ? { threadId } : {}) }, this.o.prepareMessage(message)));
      this.o.metrics?.deliveries.inc({ platform, outcome: 'ok' });
      return res;
    };
    const update = async (messageId: string, message: Message) => {
      await paced(() => poster.update({ channelId, messageId }, this.o.prepareMessage(message)));
      this.o.metrics?.deliveries.inc({ platform, outcome: 'ok' });
    };

    try {
      const first = rows[0]!;
      if (first.event_id === null && first.incident_id === null) {
        await post(JSON.parse(first.message ?? '{"blocks":[]}') as Message, first.thread_id);
        sent([first]);
        return;
      }
      // Acknowledgements: refresh the incident message, say it in the thread.
      for (const r of rows.filter((x) => x.event_id === null && x.incident_id !== null)) {
        current = [r];
        const inc = store.incident(r.incident_id!);
        if (inc?.message_id) {
          await update(inc.message_id, incidentMessage(inc, this.o.now()));
          if (r.note) this.rememberThread(inc, await post(threadLine(r.note), inc.thread_id ?? inc.message_id));
        }
        sent([r]);
      }
      const events = rows.filter((x) => x.event_id !== null);
      if (!events.length) return;
      const groups = new Map<string, Group>();
      for (const r of events) {
        const id = r.ev_node_id ?? '?';
        const g = groups.get(id) ?? { nodeId: id, nodeName: null, rows: [] };
        g.rows.push(r);
        if (r.ev_node_name) g.nodeName = r.ev_node_name;
        groups.set(id, g);
      }
      // Deliveries can arrive out of order (service retries): within a node, order by the event's own time.
      for (const g of groups.values()) g.rows.sort(byEventTime);
      const generic: Array<{ entry: DigestEntry; rows: OutboxEventRow[] }> = [];
      let opened = 0;
      const maxOpen = this.o.maxIncidentsPerRound ?? 5;
      for (const g of groups.values()) {
        const statuses = g.rows.map((r) => r.ev_status).filter((s): s is string => !!s);
        const prev = store.previousStatus(g.nodeId, g.rows[0]!.event_id!);
        let changes = 0;
        let p = prev;
        for (const s of statuses) {
          if (s !== p) changes++;
          p = s;
        }
        const last = statuses.at(-1);
        const otherTypes = [...new Set(g.rows.map((r) => r.ev_event_type ?? 'UNKNOWN').filter((t) => t !== 'NODE_STATUS_UPDATED'))];
        current = g.rows;
        const newer = statuses.length ? this.newerKnownStatus(g) : undefined;
        if (newer) {
          // Older than an event already known (a late delivery, or a newer event this channel's
          // filter did not take): the node has moved on since. It neither opens nor
          // updates an incident, and the digest shows the node's latest status.
          const old = statuses.map((s) => statusBadge(s)).join(' → ');
          const note = `older events (${old}), superseded by ${statusBadge(newer.status)} at ${newer.event_ts}`;
          generic.push({ entry: { nodeId: g.nodeId, nodeName: g.nodeName, lastStatus: newer.status, changes, events: g.rows.length, otherTypes, note }, rows: g.rows });
          continue;
        }
        const inc = store.openIncident(platform, channelId, g.nodeId);
        if (inc && inc.message_id) {
          const note = await this.updateIncident(inc, g, statuses, otherTypes, update, post);
          sent(g.rows);
          if (note) generic.push({ entry: { nodeId: g.nodeId, nodeName: g.nodeName, lastStatus: last, changes, events: g.rows.length, otherTypes, note }, rows: [] });
          continue;
        }
        if ((inc && !inc.message_id) || (last === 'FAILED' && opened < maxOpen)) {
          opened++;
          await this.openIncident(platform, channelId, g, inc, changes, post);
          sent(g.rows);
          continue;
        }
        const note = last === 'FAILED' ? 'FAILED: too many failures at once to open an incident for each; use node logs / node start' : undefined;
        generic.push({ entry: { nodeId: g.nodeId, nodeName: g.nodeName, lastStatus: last, changes, events: g.rows.length, otherTypes, note }, rows: g.rows });
      }
      if (!generic.length) return;
      const genericRows = generic.flatMap((x) => x.rows);
      const heldEvents = genericRows.filter((r) => r.held_by_mute).length;
      const muted = heldEvents > 0 && heldEvents === genericRows.length;
      if (genericRows.length === 1 && generic.length === 1 && !heldEvents && !generic[0]!.entry.note) {
        const r = genericRows[0]!;
        current = [r];
        await post(
          eventMessage({
            nodeId: r.ev_node_id ?? '?',
            nodeName: r.ev_node_name,
            eventType: r.ev_event_type ?? 'UNKNOWN',
            status: r.ev_status,
            eventTs: r.ev_event_ts,
            payload: safeJson(r.ev_payload),
          }),
        );
        sent([r]);
        return;
      }
      const size = Math.max(1, this.o.digestMaxNodes ?? 40);
      const parts = Math.ceil(generic.length / size);
      for (let i = 0; i < parts; i++) {
        const chunk = generic.slice(i * size, (i + 1) * size);
        const chunkRows = chunk.flatMap((x) => x.rows);
        current = chunkRows;
        const total = chunk.reduce((n, x) => n + x.entry.events, 0);
        await post(digestMessage(chunk.map((x) => x.entry), { totalEvents: total, muted, heldEvents: muted ? undefined : heldEvents, part: i + 1, parts }));
        sent(chunkRows);
      }
    } catch (err) {
      this.failed(err, platform, channelId, [...unsent.values()], key, current.filter((r) => unsent.has(r.id)));
    }
  }

  private async openIncident(
    platform: Platform,
    channelId: string,
    g: Group,
    existing: IncidentRow | undefined,
    changes: number,
    post: (m: Message, threadId?: string | null) => Promise<{ messageId: string; threadId?: string }>,
  ): Promise<void> {
    const { store } = this.o;
    const now = this.o.now();
    const last = g.rows.map((r) => r.ev_status).filter(Boolean).at(-1) ?? existing?.last_status ?? 'FAILED';
    const id =
      existing?.id ??
      store.insertIncident({
        platform,
        channel_id: channelId,
        node_id: g.nodeId,
        node_name: g.nodeName,
        last_status: last,
        // When the node failed (the event's own time), not when the post went out.
        opened_at: eventTime(lastChangeTo(g.rows, 'FAILED') ?? g.rows[0]!, now),
        message_id: null,
        thread_id: null,
        changes: Math.max(0, changes - 1),
      });
    if (existing) {
      const resolvedAt = Math.max(existing.opened_at, eventTime(lastChangeTo(g.rows, 'RUNNING') ?? g.rows.at(-1)!, now));
      store.updateIncident(id, last === 'RUNNING' ? { last_status: last, state: 'resolved', resolved_at: resolvedAt } : { last_status: last });
    }
    try {
      const res = await post(incidentMessage(store.incident(id)!, now));
      store.setIncidentMessage(id, res.messageId, res.threadId ?? null);
      this.log.info({ incident: id, nodeId: g.nodeId, channel: channelId }, 'incident opened');
    } catch (err) {
      if (!existing) store.deleteIncident(id);
      throw err;
    }
  }

  /** Updates the incident in place and adds a thread line; returns a note for the digest when a repeat notification is due. */
  private async updateIncident(
    inc: IncidentRow,
    g: Group,
    statuses: string[],
    otherTypes: string[],
    update: (messageId: string, m: Message) => Promise<void>,
    post: (m: Message, threadId?: string | null) => Promise<{ messageId: string; threadId?: string }>,
  ): Promise<string | undefined> {
    const { store } = this.o;
    const now = this.o.now();
    let prev = inc.last_status;
    let changes = 0;
    let refailed = false;
    for (const s of statuses) {
      if (s !== prev) {
        changes++;
        if (s === 'FAILED') refailed = true;
      }
      prev = s;
    }
    const last = statuses.at(-1) ?? inc.last_status;
    const resolved = last === 'RUNNING';
    // The duration runs to when the node was RUNNING again (the event's time), not to when this round posts.
    const resolvedAt = Math.max(inc.opened_at, eventTime(lastChangeTo(g.rows, 'RUNNING') ?? g.rows.at(-1)!, now));
    const patch = {
      last_status: last,
      changes: inc.changes + changes,
      ...(resolved ? { state: 'resolved' as const, resolved_at: resolvedAt } : {}),
    };
    const fresh: IncidentRow = { ...inc, ...patch };
    if (statuses.length) {
      try {
        await update(inc.message_id!, incidentMessage(fresh, now));
      } catch (err) {
        if (!(err instanceof PostError) || err.kind !== 'permanent') throw err;
        // The incident message cannot be edited (deleted?): post a fresh one on the retry.
        this.o.store.clearIncidentMessage(inc.id);
        this.log.warn({ incident: inc.id, reason: err.message }, 'incident message cannot be updated; it will be posted again');
        throw new PostError('transient', `incident #${inc.id} message is gone; reposting`);
      }
    }
    const parts: string[] = [];
    if (statuses.length) parts.push(statuses.map((s) => statusBadge(s)).join(' → '));
    if (otherTypes.length) parts.push(`events: ${otherTypes.join(', ')}`);
    let text = `${g.nodeName ?? g.nodeId}: ${parts.join('; ') || `${g.rows.length} event(s)`}`;
    if (resolved) text += ` — resolved after ${formatDuration(resolvedAt - inc.opened_at)}`;
    try {
      this.rememberThread(inc, await post(threadLine(text, resolved ? 'success' : last === 'FAILED' ? 'danger' : 'info'), inc.thread_id ?? inc.message_id));
    } catch (err) {
      // The message itself was updated in place; a thread that refuses the line (archived, locked)
      // must not leave the incident open in the store while its message says otherwise.
      if (!(err instanceof PostError) || err.kind !== 'permanent' || !statuses.length) throw err;
      this.log.warn({ incident: inc.id, reason: err.message }, 'incident thread line refused; the incident message was updated');
    }
    // Written once the posts went through, so a retried round computes the same changes.
    store.updateIncident(inc.id, patch);
    if (refailed && !resolved && !inc.acked_by) return `failed again; incident #${inc.id} is not acknowledged`;
    return undefined;
  }

  /** A stored status event of the node newer (by event time) than every status event of the group, if any. */
  private newerKnownStatus(g: Group): { status: string; event_ts: string } | undefined {
    const ours = new Set(g.rows.map((r) => r.event_id));
    const latestOurs = Math.max(...g.rows.filter((r) => r.ev_status).map((r) => (r.ev_event_ts ? Date.parse(r.ev_event_ts) : NaN)).filter(Number.isFinite));
    if (!Number.isFinite(latestOurs)) return undefined;
    let best: { status: string; event_ts: string; t: number } | undefined;
    for (const e of this.o.store.recentStatusEvents(g.nodeId)) {
      if (ours.has(e.id)) continue;
      const t = Date.parse(e.event_ts);
      if (Number.isFinite(t) && t > latestOurs && (!best || t > best.t)) best = { ...e, t };
    }
    return best;
  }

  /** Discord creates a thread on the first reply: keep its id so later replies go straight into it. */
  private rememberThread(inc: IncidentRow, res: { threadId?: string }): void {
    if (res.threadId && res.threadId !== inc.thread_id && inc.message_id) {
      this.o.store.setIncidentMessage(inc.id, inc.message_id, res.threadId);
      inc.thread_id = res.threadId;
    }
  }

  /**
   * `rows`: what the round had not posted yet; `current`: the rows of the message that failed.
   * A permanent refusal is about that message: only its rows fail, the others stay pending.
   */
  private failed(err: unknown, platform: Platform, channelId: string, rows: OutboxEventRow[], key: string, current: OutboxEventRow[]): void {
    const { store } = this.o;
    const now = this.o.now();
    const ids = rows.map((r) => r.id);
    const why = err instanceof Error ? err.message : String(err);
    const kind = err instanceof PostError ? err.kind : 'transient';
    if (!ids.length && kind !== 'channel_gone') return;
    if (kind === 'rate_limited') {
      const wait = (err as PostError).retryAfterMs ?? this.base;
      store.postpone(ids, now + wait, `rate limited: ${why}`, false);
      this.nextAllowed.set(key, now + wait);
      this.o.metrics?.deliveries.inc({ platform, outcome: 'rate_limited' });
      this.log.warn({ channel: channelId, platform, retryAfterMs: wait }, 'rate limited; retrying after Retry-After');
      return;
    }
    if (kind === 'channel_gone') {
      this.channelGone(platform, channelId, why);
      return;
    }
    if (kind === 'permanent') {
      const refused = current.map((r) => r.id);
      store.markState(refused, 'failed', why);
      this.o.metrics?.deliveries.inc({ platform, outcome: 'failed' });
      this.log.error({ channel: channelId, platform, rows: refused.length, reason: why }, 'notification refused by the platform; not retried');
      this.deliveryFailed(platform, channelId, current, why);
      return;
    }
    this.o.metrics?.deliveries.inc({ platform, outcome: 'retry' });
    const giveUp = rows.filter((r) => r.attempts + 1 >= this.maxAttempts);
    const again = rows.filter((r) => r.attempts + 1 < this.maxAttempts);
    if (giveUp.length) {
      store.markState(
        giveUp.map((r) => r.id),
        'failed',
        `gave up after ${this.maxAttempts} attempts: ${why}`,
      );
      this.o.metrics?.deliveries.inc({ platform, outcome: 'failed' });
      this.log.error({ channel: channelId, platform, rows: giveUp.length, reason: why }, 'notification failed too many times; given up');
      this.deliveryFailed(platform, channelId, giveUp, why);
    }
    if (again.length) {
      const attempts = Math.min(...again.map((r) => r.attempts)) + 1;
      const delay = Math.min(this.maxDelay, this.base * 2 ** (attempts - 1));
      store.postpone(
        again.map((r) => r.id),
        now + delay,
        why,
        true,
      );
      this.log.warn({ channel: channelId, platform, attempt: attempts, delayMs: delay, reason: why }, 'posting failed; retrying with backoff');
    }
  }

  /**
   * The channel is gone or the bot was removed: its watches are paused, what waited for it is
   * set aside (state `gone`), a notice is stored and logged, and posted to another watched
   * channel (the same platform first) naming the admins.
   */
  private channelGone(platform: Platform, channelId: string, why: string): void {
    const { store } = this.o;
    const now = this.o.now();
    const paused = store.pauseWatches(platform, channelId, now, why);
    const waiting = store.pendingIdsOfChannel(platform, channelId);
    store.markState(waiting, 'gone', why);
    this.o.metrics?.deliveries.inc({ platform, outcome: 'gone' });
    const admins = this.o.admins?.length ? ` Admins: ${this.o.admins.join(', ')}.` : '';
    const text =
      `The ${platform} channel ${channelId} no longer exists or the bot was removed from it (${why}). ` +
      `Its ${paused} watch(es) are paused and ${waiting.length} waiting notification(s) were set aside.${admins} ` +
      'To resume, invite the bot back and run `/rln watch add <node|all>` in that channel.';
    this.log.error({ platform, channel: channelId, paused, setAside: waiting.length }, 'channel gone: watches paused, admins told');
    this.tellAdmins(platform, channelId, 'channel_gone', 'A watched channel is unreachable; its watches are paused', text, `channel_gone:${platform}:${channelId}:${now}`);
  }

  /**
   * Notifications of a channel were given up (refused, or failed too many times): stored as a
   * notice and posted to another watched channel naming the admins (a channel's next failure
   * within 10 minutes is only stored and logged). A failed notice does not cause another (no ping-pong between channels).
   */
  private deliveryFailed(platform: Platform, channelId: string, rows: OutboxEventRow[], why: string): void {
    const alerts = rows.filter((r) => r.kind !== 'notice');
    if (!alerts.length) return;
    const now = this.o.now();
    const last = this.o.store.lastNoticeAt(platform, channelId, 'delivery_failed');
    const quiet = last !== undefined && now - last < 10 * 60_000;
    const nodes = [...new Set(alerts.map((r) => r.ev_node_name ?? r.ev_node_id).filter((x): x is string => !!x))];
    const admins = this.o.admins?.length ? ` Admins: ${this.o.admins.join(', ')}.` : '';
    const text =
      `${alerts.length} notification(s) for the ${platform} channel ${channelId} could not be delivered and were given up (${why})` +
      `${nodes.length ? `; nodes: ${nodes.slice(0, 20).join(', ')}${nodes.length > 20 ? ', …' : ''}` : ''}.${admins} ` +
      'Check the bot can post there; `/rln node list` shows the current status of every node.';
    this.tellAdmins(platform, channelId, 'delivery_failed', 'Notifications could not be delivered', text, `delivery_failed:${platform}:${channelId}:${now}`, quiet);
  }

  /** Stores the notice and, unless `storeOnly`, posts it to another watched channel. */
  private tellAdmins(platform: Platform, channelId: string, kind: string, header: string, text: string, dedupeKey: string, storeOnly = false): void {
    const { store } = this.o;
    const now = this.o.now();
    store.insertNotice({ platform, channel_id: channelId, kind, text, created_at: now });
    if (storeOnly) return;
    const others = store
      .watches()
      .filter((w) => !w.paused_at && !(w.platform === platform && w.channel_id === channelId) && this.o.posters[w.platform as Platform])
      .sort((a, b) => Number(b.platform === platform) - Number(a.platform === platform) || a.id - b.id);
    const to = others[0];
    if (to) {
      store.insertOutbox({
        platform: to.platform,
        channel_id: to.channel_id,
        kind: 'notice',
        message: JSON.stringify(noticeMessage(header, text)),
        dedupe_key: dedupeKey,
        next_attempt_at: now,
        created_at: now,
      });
    }
  }
}

function byEventTime(a: OutboxEventRow, b: OutboxEventRow): number {
  const ta = a.ev_event_ts ? Date.parse(a.ev_event_ts) : NaN;
  const tb = b.ev_event_ts ? Date.parse(b.ev_event_ts) : NaN;
  if (Number.isFinite(ta) && Number.isFinite(tb) && ta !== tb) return ta - tb;
  return (a.event_id ?? 0) - (b.event_id ?? 0);
}

/** When the event happened: its own timestamp, else when it was received. */
function eventTime(r: OutboxEventRow, fallback: number): number {
  const t = r.ev_event_ts ? Date.parse(r.ev_event_ts) : NaN;
  return Number.isFinite(t) ? t : (r.ev_received_at ?? fallback);
}

/** The row (in event order) where the last run of `status` began, if the rows end in that status. */
function lastChangeTo(rows: OutboxEventRow[], status: string): OutboxEventRow | undefined {
  let at: OutboxEventRow | undefined;
  for (const r of rows) {
    if (!r.ev_status) continue;
    at = r.ev_status === status ? (at ?? r) : undefined;
  }
  return at;
}

function safeJson(s: string | null): Record<string, unknown> | undefined {
  if (!s) return undefined;
  try {
    const v = JSON.parse(s) as unknown;
    return v && typeof v === 'object' ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
