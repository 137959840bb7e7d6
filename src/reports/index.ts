/**
 * Reports: balance and channel reports with the change since the last one, and their
 * schedules. The composition root calls createReports and puts `service` in
 * Services.reports; `scheduler.start()` re-registers the stored schedules.
 */
import type { AnyDb } from '../store/index.js';
import type { Outbox } from '../vocabulary/index.js';
import { isUserError } from '../vocabulary/index.js';
import { redactText, type Logger } from '../log.js';
import type { Metrics } from '../metrics.js';
import { createActivityStateRepo, createDigestSource, createSnapshotRepo } from '../store/index.js';
import { createCallScheduler, type CallScheduler } from '../node-api/index.js';
import { createScheduleRepo, createLeases } from '../store/index.js';
import { createReportService, type ReportClients, type ReportService } from './report-service.js';
import { createReportScheduler, type TickSource } from './scheduler.js';
import type { Thresholds } from './channel-report.js';

export interface CreateReportsOptions {
  db: AnyDb;
  /** Only `hosting` and `nodeApi` are used: the reports service is built before the one services object. */
  services: ReportClients;
  outbox: Outbox;
  logger: Logger;
  metrics?: Metrics;
  /** Local-share flags of the channel report. Default { low: 0.2, high: 0.8 } (REPORT_LOW_SHARE / REPORT_HIGH_SHARE). */
  thresholds?: Thresholds;
  /**
   * Where node reads go: the process's one scheduler of node work (bounded overall and per node,
   * adaptive, with a deadline per node). Default: one of its own, of at most `concurrency` at once.
   */
  calls?: CallScheduler;
  /** With no `calls`: the most nodes asked at once. Default 64 (NODE_CALLS_MAX). */
  concurrency?: number;
  /** Time a node has to answer before it gets a "did not answer" line. Default 15 s. */
  nodeTimeoutMs?: number;
  /** Time a node has to answer for the status dashboard. Default 3 s. */
  dashboardTimeoutMs?: number;
  /** Schedules one channel may have. Default 25. */
  maxSchedulesPerChannel?: number;
  /** The clock (ms since the epoch). Default Date.now. */
  now?: () => number;
  /** Days a report snapshot is kept per node and kind (SNAPSHOT_RETENTION_DAYS). Default 35. */
  snapshotRetentionDays?: number;
  /** This replica, as the holder of the schedule ticks it claims. Default a random id per process. */
  replicaId?: string;
  /** Where schedule ticks come from. Default node-cron (tests drive a clock). */
  ticks?: TickSource;
  /** How often the scheduler looks for schedules another replica added or removed. Default 5 s. */
  reloadEveryMs?: number;
}

export function createReports(opts: CreateReportsOptions): { service: ReportService; scheduler: { start(): Promise<void>; stop(): void } } {
  const now = opts.now ?? Date.now;
  const schedules = createScheduleRepo(opts.db);
  const snapshots = createSnapshotRepo(opts.db, { retentionDays: opts.snapshotRetentionDays, now });
  const logger = opts.logger;
  const scheduler = createReportScheduler({
    schedules,
    leases: createLeases(opts.db),
    owner: opts.replicaId,
    ticks: opts.ticks,
    reloadEveryMs: opts.reloadEveryMs,
    now,
    logger,
    run: async (s, tick) => {
      // Only the replica that claimed the tick runs it; the key also keeps the outbox to one post.
      const dedupeKey = `report:${s.id}:${tick.toISOString()}`;
      try {
        // Each schedule keeps its own baseline: the change since its own last report, whatever was asked in chat.
        const r = await service.run(s.kind, s.target, {
          unit: s.unit,
          timeZone: s.timezone,
          baseline: `schedule:${s.id}`,
          place: { platform: s.platform, channelId: s.channelId },
        });
        await opts.outbox.enqueue({ platform: s.platform, channelId: s.channelId, kind: 'report', message: r.message, dedupeKey });
      } catch (e) {
        logger.warn({ err: e, scheduleId: s.id }, 'scheduled report could not be built');
        const gone = isUserError(e) && e.code === 'unknown_node';
        const what = gone
          ? `The node ${s.targetLabel} no longer exists on the service.`
          : redactText(e instanceof Error ? e.message : String(e));
        const hint = gone
          ? ''
          : e && typeof e === 'object' && typeof (e as { hint?: unknown }).hint === 'string'
            ? ` ${redactText((e as { hint: string }).hint)}`
            : '';
        await opts.outbox.enqueue({
          platform: s.platform,
          channelId: s.channelId,
          kind: 'report',
          dedupeKey,
          message: {
            header: `The scheduled ${s.kind} report for ${s.targetLabel} could not be made`,
            tone: 'danger',
            blocks: [
              { type: 'text', text: `${what}${hint}` },
              { type: 'context', text: `Schedule ${s.id} · ${s.cron} (${s.timezone}) · remove it with /rln report unschedule ${s.id}` },
            ],
          },
        });
      }
    },
  });
  const service: ReportService = createReportService({
    services: opts.services,
    snapshots,
    states: createActivityStateRepo(opts.db),
    schedules,
    digestSource: createDigestSource(opts.db),
    scheduler,
    logger,
    metrics: opts.metrics,
    thresholds: opts.thresholds ?? { low: 0.2, high: 0.8 },
    calls: opts.calls ?? createCallScheduler({ maxConcurrency: opts.concurrency ?? 64 }),
    nodeTimeoutMs: opts.nodeTimeoutMs ?? 15_000,
    dashboardTimeoutMs: opts.dashboardTimeoutMs ?? 3_000,
    maxSchedulesPerChannel: opts.maxSchedulesPerChannel ?? 25,
    now,
  });
  return { service, scheduler: { start: () => scheduler.start(), stop: () => scheduler.stop() } };
}

export type { ReportService, ScheduleRequest } from './report-service.js';
export type { ReadableNode, ReportKind, ReportOptions, ReportResult, ScheduleInfo, Unit } from './types.js';
export type { Thresholds } from './channel-report.js';
export type { DashboardNode, DashboardPage, Freshness, LockState } from './dashboard.js';
export { DASHBOARD_PAGE_SIZE } from './report-service.js';
export { buildBalanceReport } from './balance-report.js';
export { buildChannelReport } from './channel-report.js';
export { buildDigest, digestFigures, DIGEST_WINDOW_MS, type DigestFigures } from './digest.js';
export { checkCron, type TickSource } from './scheduler.js';
export { describeCron } from './describe-cron.js';
