/**
 * The outbox worker: routes the events stored but not yet routed (route-pending.ts: the
 * webhook path leaves that to it, after its 2xx), then looks for channels with due rows and
 * runs one round per channel at a time. A round is planned without I/O (plan-round.ts: reports and notices as they are,
 * acknowledgements, incidents, superseded events, one message or a digest), then carried out
 * by the executor (execute-round.ts) through the channel's pacer (pacer.ts), which records the
 * outcome: sent, retried with backoff, held by a 429, failed, or the channel gone. Incidents
 * are in incidents.ts; telling the admins about failed deliveries in escalation.ts.
 */
import { letThrough, type ChatPoster } from '../vocabulary/index.js';
import type { Message } from '../vocabulary/index.js';
import type { Platform } from '../vocabulary/index.js';
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics.js';
import type { NotifyStore } from '../store/index.js';
import { createEscalation, type Escalation } from './escalation.js';
import { executeRound, readRoundState, recordFailure, type RetryPolicy, type RoundContext } from './execute-round.js';
import { ChannelPacer } from './pacer.js';
import { ChannelLeaseLost, type ChannelClaims } from './channel-claims.js';
import { planSteps, roundRows } from './plan-round.js';

export interface OutboxWorkerOptions {
  store: NotifyStore;
  posters: Partial<Record<Platform, ChatPoster>>;
  prepareMessage: (m: Message) => Message | Promise<Message>;
  logger: Logger;
  metrics?: Metrics;
  /** The one clock (milliseconds): due times, pacing, backoff and the quiet polls all read it; the worker reads no other. */
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
  /**
   * Replicas on one database: a channel's round runs only on the replica holding its lease,
   * which keeps it until the channel may post again (channel-claims.ts). Without it (one
   * process), every channel is this worker's.
   */
  claims?: ChannelClaims;
  /**
   * Routes the events stored but not yet routed (createEventRouter().routePending), at the start
   * of every pass, before it reads what is due: true when none is left, false when more wait
   * (the next pass follows at once).
   */
  route?: () => Promise<boolean>;
}

export class OutboxWorker {
  private timer: NodeJS.Timeout | undefined;
  private readonly inflight = new Map<string, Promise<void>>();
  /**
   * Per channel (`platform|channel`): rows this worker posted whose record as sent failed (the
   * database refused the write). Recorded before the channel's next round here, which does not
   * start until they are: a message the chat already shows is never posted again by this worker.
   */
  private readonly unrecorded = new Map<string, number[]>();
  private readonly warnedNoPoster = new Set<string>();
  private stopped = true;
  private lastPrune = 0;
  private ticking = false;
  private wakeQueued = false;
  /** Passes failed in a row (the database unreachable...): the timer and wakes wait until backoffUntil (worker clock). */
  private tickFailures = 0;
  private backoffUntil = 0;
  /**
   * What the last pass learned (worker clock): no channel it saw can start a round before
   * `quietUntil` (its coalescing window, its retry time, its pacer), and a channel in a round
   * wakes the worker when the round ends. Timer polls before then are skipped unless a wake
   * came since (`woken`), or `maxQuietMs` of the worker clock passed (rows queued by another replica,
   * a mute that ended). A pass reads every waiting row (a GROUP BY over the outbox); at 1,000
   * events/s, ten passes a second found nothing to do while the channel's round ran.
   */
  private quietUntil = 0;
  private woken = false;
  private lastPassAt = 0;
  /** When the outbox's depth was last counted (tick). */
  private depthCountedAt = 0;
  /** Whether the last pass found a channel with pending rows (tick: a pass that finds otherwise counts at once). */
  private hadPending = false;
  private readonly maxQuietMs: number;
  private readonly log: Logger;
  private readonly window: number;
  private readonly retry: RetryPolicy;
  private readonly pacer: ChannelPacer;
  private readonly escalation: Escalation;
  readonly pollMs: number;

  constructor(private readonly o: OutboxWorkerOptions) {
    this.log = o.logger.child({ room: 'notify' });
    this.window = o.coalesceWindowMs ?? 250;
    this.retry = {
      baseDelayMs: o.retry?.baseDelayMs ?? 1000,
      maxDelayMs: o.retry?.maxDelayMs ?? 5 * 60_000,
      maxAttempts: o.retry?.maxAttempts ?? 12,
    };
    this.pollMs = o.pollMs ?? 100;
    this.maxQuietMs = Math.max(this.pollMs, Math.min(1000, 10 * this.pollMs));
    this.pacer = new ChannelPacer({ now: o.now, intervalMs: o.perChannelIntervalMs ?? 1000, perPlatformMs: o.perPlatformIntervalMs });
    this.escalation = createEscalation({
      store: o.store,
      canPost: (platform) => !!o.posters[platform],
      now: o.now,
      log: this.log,
      metrics: o.metrics,
      admins: o.admins,
    });
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.timer = setInterval(() => this.polled(), this.pollMs);
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
    if (this.stopped) return;
    // Also for a wake that comes while a pass runs (it is not run twice): the next poll is not skipped.
    this.woken = true;
    if (this.wakeQueued) return;
    this.wakeQueued = true;
    // Behind the webhook commits queued in this turn (letThrough): a pass routes a chunk and
    // reads the outbox before its first pause, and a batch's 2xx does not wait for that.
    void letThrough().then(() => {
      this.wakeQueued = false;
      this.scheduledTick();
    });
  }

  get idle(): boolean {
    return this.inflight.size === 0;
  }

  /** A timer poll: a pass, unless the last pass showed nothing can be started yet (see quietUntil). */
  private polled(): void {
    const now = this.o.now();
    if (!this.woken && now < this.quietUntil && now - this.lastPassAt < this.maxQuietMs) return;
    this.scheduledTick();
  }

  /** A pass from the timer or a wake: none while backing off after failed passes. */
  private scheduledTick(): void {
    if (this.o.now() < this.backoffUntil) return;
    void this.tick();
  }

  /** One pass: routes stored events, releases ended mutes, starts a round for every channel that may post now. */
  async tick(): Promise<void> {
    if (this.ticking) return;
    this.ticking = true;
    this.woken = false;
    this.lastPassAt = this.o.now();
    // Until this pass has looked, a poll is not skipped.
    this.quietUntil = 0;
    let moreToRoute = false;
    try {
      // First the events the webhook stored since the last pass: their rows are read below. A
      // failure to route does not keep the pass from posting what is already queued (the
      // events stay marked and are routed by a later pass); a database that is down fails below.
      if (this.o.route) {
        try {
          moreToRoute = !(await this.o.route());
        } catch (err) {
          this.log.error({ err }, 'routing stored events failed; they stay marked and are routed by a later pass');
        }
        // The routing's last chunk and the reads below are two pieces, not one.
        await letThrough();
      }
      const now = this.o.now();
      await this.releaseHeld(now);
      let quietUntil = Infinity;
      const channels = await this.o.store.pendingChannels();
      // The depth: the rows waiting (pending or held) and the events not yet routed (a backlog of
      // the router shows here too). Counting the waiting rows reads each one's index entry (4 ms
      // at 100,000), so it is counted at most once a second, not at every pass a burst of
      // webhooks makes (nor at each pass of a storm routed into a muted channel: held rows only);
      // and at once at the pass that finds rows pending after none, or none after some, so the
      // gauge shows a row that waits and reaches 0 when the outbox drains without that second.
      const pending = channels.length > 0;
      const turned = pending !== this.hadPending;
      this.hadPending = pending;
      if (this.o.metrics && (turned || now - this.depthCountedAt >= 1000)) {
        this.depthCountedAt = now;
        const toRoute = this.o.route ? await this.o.store.eventsToRouteCount() : 0;
        this.o.metrics.outboxDepth.set((await this.o.store.depth()) + toRoute);
      }
      for (const ch of channels) {
        const key = `${ch.platform}|${ch.channel_id}`;
        // A channel in a round wakes the worker when the round ends.
        if (this.inflight.has(key)) continue;
        const readyAt = Math.max(ch.due, ch.oldest + this.window, this.pacer.nextAt(ch.platform as Platform, ch.channel_id));
        if (readyAt > now) {
          quietUntil = Math.min(quietUntil, readyAt);
          continue;
        }
        const poster = this.o.posters[ch.platform as Platform];
        if (!poster) {
          if (!this.warnedNoPoster.has(ch.platform)) {
            this.warnedNoPoster.add(ch.platform);
            this.log.warn(
              { platform: ch.platform },
              `no ${ch.platform} connection: its notifications wait in the outbox until one is configured`,
            );
          }
          continue;
        }
        if (this.o.claims && !(await this.o.claims.take(ch.platform, ch.channel_id, now))) {
          quietUntil = now; // another replica holds it: look again at the next poll
          continue;
        }
        if (this.inflight.has(key)) continue; // a round began while the claim was being asked
        const round = this.round(ch.platform as Platform, ch.channel_id, poster)
          .catch((err: unknown) => this.log.error({ err, channel: ch.channel_id }, 'notify round failed'))
          .finally(() => {
            this.inflight.delete(key);
            this.wake();
          });
        this.inflight.set(key, round);
      }
      this.quietUntil = quietUntil;
      if (now - this.lastPrune > 10 * 60_000) {
        this.lastPrune = now;
        // Housekeeping only: every mute check already ignores mutes that have ended.
        await this.o.store.deleteExpiredMutes(now);
        const gone = await this.o.store.prune(now - (this.o.retentionMs ?? 30 * 24 * 3600_000));
        if (gone.outbox || gone.events) this.log.info(gone, 'old notifications pruned');
      }
      this.tickFailures = 0;
      this.backoffUntil = 0;
    } catch (err) {
      // Not again at every poll and every wake while the database is down: 1 s, doubling to 30 s.
      this.tickFailures++;
      const retryInMs = Math.min(30_000, 1000 * 2 ** (this.tickFailures - 1));
      this.backoffUntil = this.o.now() + retryInMs;
      this.log.error({ err, failures: this.tickFailures, retryInMs }, 'notify tick failed');
      moreToRoute = false;
    } finally {
      this.ticking = false;
    }
    if (moreToRoute) this.wake();
  }

  private async releaseHeld(now: number): Promise<void> {
    const free = await this.o.store.releasableHeldIds(now);
    if (free.length) await this.o.store.releaseHeld(free, now);
  }

  /** One round in one channel: read what is due, plan it, carry it out, record a failure. */
  private async round(platform: Platform, channelId: string, poster: ChatPoster): Promise<void> {
    const { store } = this.o;
    const claims = this.o.claims;
    let heartbeat: NodeJS.Timeout | undefined;
    /** Renewals in flight: none may land after done() and push the lease back to a full round. */
    const renewals = new Set<Promise<unknown>>();
    const key = `${platform}|${channelId}`;
    // From here the claim is taken: whatever happens (nothing due, a store error), done() runs.
    try {
      const now = this.o.now();
      // What this worker posted last time and could not record: recorded first (a failure here
      // fails the round before it posts anything, and the next pass tries again).
      const owed = this.unrecorded.get(key);
      if (owed) {
        await store.markSent(owed, now);
        this.unrecorded.delete(key);
        this.log.info(
          { channel: channelId, rows: owed.length },
          'recorded as sent the rows posted before the database refused their record',
        );
      }
      // Reading, planning and marking a round of ~1,000 rows is several slices of work with the
      // event loop let through between them: webhook requests never wait for the whole round.
      const due = await store.duePending(platform, channelId, now);
      if (!due.length) return;
      await letThrough();
      const limits = { maxIncidentsPerRound: this.o.maxIncidentsPerRound ?? 5, digestMaxNodes: this.o.digestMaxNodes ?? 40 };
      const state = await readRoundState(store, platform, channelId, due, now, limits);
      // Planned in slices too (planSteps): a round of 2,000 rows was up to 28 ms in one go.
      const steps = planSteps(due, state);
      await letThrough();
      let step = steps.next();
      while (!step.done) {
        await letThrough();
        step = steps.next();
      }
      const actions = step.value;
      await letThrough();
      const ctx: RoundContext = {
        store,
        platform,
        channelId,
        poster,
        pacer: this.pacer,
        prepareMessage: this.o.prepareMessage,
        now: this.o.now,
        log: this.log,
        metrics: this.o.metrics,
      };
      if (claims) {
        // The lease is renewed while the round runs (a post may take seconds) and checked before each call.
        // Lost only when another replica holds it (take() false); a database error is retried.
        let lost = false;
        const renew = (): Promise<boolean> => {
          const p = claims.take(platform, channelId, this.o.now()).then((held) => {
            if (!held) lost = true;
            return held;
          });
          const settled = p.catch(() => undefined).finally(() => renewals.delete(settled));
          renewals.add(settled);
          return p;
        };
        heartbeat = setInterval(() => {
          renew().catch((err: unknown) =>
            this.log.debug({ err, channel: channelId }, 'could not renew the channel lease; retried before the next call'),
          );
        }, claims.heartbeatMs);
        heartbeat.unref?.();
        ctx.beforeCall = async () => {
          let held: boolean;
          try {
            held = !lost && (await renew().catch(() => renew()));
          } catch (err) {
            // Still ours as far as we know: a transient failure of the round (retried with backoff).
            throw new Error(
              `could not renew the lease of ${platform} channel ${channelId}: ${err instanceof Error ? err.message : String(err)}`,
              { cause: err },
            );
          }
          if (!held) throw new ChannelLeaseLost(`${platform} channel ${channelId} is posted by another replica now`);
        };
      }
      const failure = await executeRound(ctx, roundRows(due), actions);
      if (failure?.unrecorded?.length) {
        this.unrecorded.set(
          key,
          failure.unrecorded.map((r) => r.id),
        );
        this.log.warn(
          { err: failure.err, channel: channelId, rows: failure.unrecorded.length },
          'posted, but recording it as sent failed: it is recorded before the next round in this channel, and not posted again',
        );
      }
      if (failure?.err instanceof ChannelLeaseLost)
        this.log.warn({ channel: channelId }, 'stopped a round: another replica holds the channel now (this one lost its lease)');
      else if (failure) await recordFailure(ctx, failure, this.retry, this.escalation);
    } finally {
      clearInterval(heartbeat);
      await Promise.all(renewals);
      // The channel stays this replica's until it may post again: no other replica posts sooner.
      // While some of its posts are not recorded, it stays this replica's for a round's length
      // (renewed by each pass that tries to record them): no other replica posts them again.
      if (claims && this.unrecorded.has(key)) await claims.take(platform, channelId, this.o.now());
      else await claims?.done(platform, channelId, this.pacer.nextAt(platform, channelId), this.o.now());
    }
  }
}
