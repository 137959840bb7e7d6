/**
 * Builds balance and channel reports for one node or all of them, storing a snapshot of
 * each so the next report shows the change, and manages the report schedules of a channel.
 */
import type { Platform } from '../vocabulary/index.js';
import { UserError } from '../vocabulary/index.js';
import { findNode, type HostedNode, type HostingClient } from '../hosting/index.js';
import type { CallScheduler, NodeApiClient } from '../node-api/index.js';
import { redactText, type Logger } from '../log.js';
import type { Metrics } from '../metrics.js';
import type { ActivityStateRepo, SnapshotRepo, StoredSnapshot } from '../store/index.js';
import type { ReportSchedule, ScheduleRepo } from '../store/index.js';
import type { ReportNodeApi } from './node-api-shape.js';
import type { NodeOutcome, ReadableNode, ReportKind, ReportOptions, ReportResult, ScheduleInfo, Unit } from './types.js';
import { gatherBalance, gatherChannels } from './gather-node.js';
import { problemFromError, problemFromStatus } from './describe-node-problem.js';
import { buildBalanceReport, showsEachNode } from './balance-report.js';
import { buildChannelReport, type ChannelReportInput, type Thresholds } from './channel-report.js';
import { checkCron, type ReportScheduler } from './scheduler.js';
import { describeCron } from './describe-cron.js';
import { isKnownTimeZone } from './time-zone.js';
import { gatherDashboard, type DashboardNode, type DashboardPage } from './dashboard.js';
import { reportCharts } from './charts/report-charts.js';
import type { Message } from '../vocabulary/index.js';
import type { DigestSource } from '../store/index.js';
import { buildDigest, DIGEST_COMMANDS, DIGEST_MAX_EVENTS, DIGEST_WINDOW_MS, forNodes, type DigestDay } from './digest.js';

/** The clients a report reads from: the service's node list and each node's own API. */
export interface ReportClients {
  hosting: HostingClient;
  nodeApi(node: HostedNode): NodeApiClient;
}

export interface ScheduleRequest {
  platform: Platform;
  channelId: string;
  kind: ReportKind;
  /** A node's name or id, or `all`. */
  node: string;
  cron: string;
  /** IANA zone; default UTC. */
  timezone?: string;
  unit?: Unit;
  /** `slack:U123`: who asked. */
  createdBy: string;
  /** Whether the asker may read a node; absent when they may read every node. A scoped asker schedules only nodes they may read. */
  readable?: ReadableNode;
}

export interface ReportService {
  /** `node` is a node's name or id, or `all`. Never throws for a node that cannot answer: it gets one line. */
  balance(node: string, opts?: ReportOptions): Promise<ReportResult>;
  channels(node: string, opts?: ReportOptions): Promise<ReportResult>;
  /**
   * The daily digest of the last 24 hours (and the change since the 24 hours before), from the
   * bot's own records; `opts.place` names the channel whose incidents it lists.
   */
  digest(node: string, opts?: ReportOptions): Promise<ReportResult>;
  run(kind: ReportKind, node: string, opts?: ReportOptions): Promise<ReportResult>;
  /**
   * Every node of the account at a glance, for the status dashboard, in its order (by name): the
   * nodes of the page asked for are read (default the first 8), the others are listed unread. A
   * node that cannot answer gets its problem and its last known figures with their age.
   */
  dashboard(page?: Partial<DashboardPage>): Promise<DashboardNode[]>;
  /** Stores and starts a schedule. UserError for a bad expression, zone or node. */
  schedule(req: ScheduleRequest): Promise<ScheduleInfo>;
  /** The schedules of one channel, with their next run. */
  schedules(platform: Platform, channelId: string): Promise<ScheduleInfo[]>;
  /** Removes a schedule of that channel. UserError when the channel has no such schedule. */
  unschedule(platform: Platform, channelId: string, id: number): Promise<ScheduleInfo>;
}

export interface ReportServiceDeps {
  /** Only the hosting client and node API clients are used. */
  services: ReportClients;
  snapshots: SnapshotRepo;
  /** What the activity poller kept of each node at its last pass (the dashboard's last known figures). */
  states?: Pick<ActivityStateRepo, 'get'>;
  schedules: ScheduleRepo;
  /** What the digest reads: stored events, incidents, the audit trail. */
  digestSource: DigestSource;
  scheduler: ReportScheduler;
  logger: Logger;
  metrics?: Metrics;
  thresholds: Thresholds;
  /** Where every node read goes: bounded overall and per node, adaptive, with each node's deadline. */
  calls: CallScheduler;
  nodeTimeoutMs: number;
  /** How long the dashboard waits for one node (short: it is read at a glance, and by App Home). */
  dashboardTimeoutMs: number;
  maxSchedulesPerChannel: number;
  /** The clock (ms since the epoch). */
  now: () => number;
}

/** The dashboard's page when none is given (the status command's). */
export const DASHBOARD_PAGE_SIZE = 8;

export function createReportService(d: ReportServiceDeps): ReportService {
  const listNodes = async (): Promise<HostedNode[]> => {
    try {
      return await d.services.hosting.listNodes();
    } catch (e) {
      d.logger.warn({ err: e }, 'reports: could not list nodes');
      const hint =
        e && typeof e === 'object' && typeof (e as { hint?: unknown }).hint === 'string' ? (e as { hint: string }).hint : undefined;
      throw new UserError(
        'service_error',
        `The node list could not be read from the hosting service: ${redactText(e instanceof Error ? e.message : String(e))}`,
        hint ?? 'Try again in a minute; /rln node list shows whether the service answers.',
      );
    }
  };

  /** `all` (the nodes the asker may read), or the one node named, refused when the asker may not read it. */
  const targets = async (ref: string, readable?: ReadableNode): Promise<{ label: string; nodes: HostedNode[] }> => {
    const nodes = await listNodes();
    if (ref.trim().toLowerCase() === 'all') {
      const shown = readable ? nodes.filter(readable) : nodes;
      return { label: 'all', nodes: [...shown].sort((a, b) => a.name.localeCompare(b.name)) };
    }
    const node = findNode(nodes, ref.trim());
    if (!node)
      throw new UserError('unknown_node', `There is no node named "${ref}".`, 'See /rln node list for the names, or use all.', {
        node: ref,
      });
    if (readable && !readable(node))
      throw new UserError(
        'forbidden',
        `Your read access does not reach ${node.name}.`,
        'Name a node you may read (/rln node list shows them), or all for every one of them.',
        { node: node.name },
      );
    return { label: node.name, nodes: [node] };
  };

  async function gather<T>(
    nodes: HostedNode[],
    fn: (api: ReportNodeApi) => Promise<T>,
    onProgress?: ReportOptions['onProgress'],
  ): Promise<Array<NodeOutcome<T>>> {
    let done = 0;
    const told = () => onProgress?.(++done, nodes.length);
    return Promise.all(
      nodes.map(async (node): Promise<NodeOutcome<T>> => {
        const known = problemFromStatus(node);
        if (known) {
          told();
          return { ok: false, node, ...known };
        }
        try {
          // The node's calls share its deadline (or the chat command's, when sooner), from when its turn comes.
          const data = await d.calls.run(node.nodeId, () => fn(d.services.nodeApi(node)), { deadlineMs: d.nodeTimeoutMs });
          return { ok: true, node, data };
        } catch (e) {
          const p = problemFromError(node, e);
          d.logger.info({ nodeId: node.nodeId, problem: p.problem }, 'reports: node could not be reported on');
          return { ok: false, node, ...p };
        } finally {
          if (!known) told();
        }
      }),
    );
  }

  const count = (kind: ReportKind, outcome: string) => d.metrics?.reportRuns.inc({ kind, outcome });

  /**
   * A report over the nodes with a snapshot of each: gathered (the chain asked only where each
   * node is shown), built against each node's last snapshot, and its snapshots saved.
   */
  async function snapshotReport<T, S>(
    kind: 'balance' | 'channels',
    ref: string,
    opts: ReportOptions,
    gatherOne: (api: ReportNodeApi, chainShown: boolean) => Promise<T>,
    build: (input: {
      target: string;
      unit: Unit;
      now: Date;
      timeZone?: string;
      nodes: Array<{ outcome: NodeOutcome<T>; previous?: StoredSnapshot<S> }>;
    }) => { message: Message; snapshots: Array<{ nodeId: string; data: S }> },
  ): Promise<ReportResult> {
    const { label, nodes } = await targets(ref, opts.readable);
    const chainShown = showsEachNode(label, nodes.length);
    const outcomes = await gather(nodes, (api) => gatherOne(api, chainShown), opts.onProgress);
    const now = new Date(d.now());
    const scope = opts.baseline ?? '';
    const built = build({
      target: label,
      unit: opts.unit ?? 'sat',
      now,
      timeZone: opts.timeZone,
      nodes: await Promise.all(
        outcomes.map(async (outcome) => ({
          outcome,
          previous: outcome.ok ? await d.snapshots.latest<S>(outcome.node.nodeId, kind, scope) : undefined,
        })),
      ),
    });
    // One transaction for the report's snapshots: 2,000 nodes are one commit, not 2,000.
    await d.snapshots.saveMany(built.snapshots.map((s) => ({ nodeId: s.nodeId, kind, takenAt: now, data: s.data, scope })));
    return result(outcomes, await withCharts(built.message, kind, outcomes, now, opts));
  }

  function balance(ref: string, opts: ReportOptions = {}): Promise<ReportResult> {
    return snapshotReport('balance', ref, opts, gatherBalance, buildBalanceReport);
  }

  function channels(ref: string, opts: ReportOptions = {}): Promise<ReportResult> {
    return snapshotReport('channels', ref, opts, gatherChannels, (input: Omit<ChannelReportInput, 'thresholds'>) =>
      buildChannelReport({ ...input, thresholds: d.thresholds }),
    );
  }

  /** The report with a chart of each node shown in detail (history from the snapshots, this one included). */
  async function withCharts(
    message: Message,
    kind: ReportKind,
    outcomes: Array<NodeOutcome<unknown>>,
    now: Date,
    opts: ReportOptions,
  ): Promise<Message> {
    const days = opts.chartDays ?? 7;
    if (days === 0) return message;
    const nodes = outcomes.filter((o) => o.ok).map((o) => o.node);
    const { files, notes } = await reportCharts(
      { kind: kind === 'balance' ? 'balance' : 'channels', nodes, unit: opts.unit ?? 'sat', days, now },
      { snapshots: d.snapshots, logger: d.logger },
    );
    if (!files.length && !notes.length) return message;
    return {
      ...message,
      blocks: [...message.blocks, ...notes.map((n) => ({ type: 'context' as const, text: n }))],
      files: [...(message.files ?? []), ...files],
    };
  }

  async function digest(ref: string, opts: ReportOptions = {}): Promise<ReportResult> {
    const zone = opts.timeZone ?? 'UTC';
    if (!isKnownTimeZone(zone)) {
      throw new UserError(
        'invalid_arguments',
        `"${zone}" is not a known time zone.`,
        'Use an IANA zone name, e.g. tz=Europe/Rome or tz=UTC.',
        { tz: zone },
      );
    }
    let label = 'all';
    let nodeIds: Set<string> | undefined;
    if (ref.trim().toLowerCase() !== 'all' || opts.readable) {
      const t = await targets(ref, opts.readable);
      label = t.label;
      nodeIds = new Set(t.nodes.map((n) => n.nodeId));
    }
    const end = d.now();
    const read = async (from: number, to: number): Promise<DigestDay> =>
      forNodes(
        {
          events: await d.digestSource.events(from, to, DIGEST_MAX_EVENTS),
          incidents: opts.place ? await d.digestSource.incidents(opts.place.platform, opts.place.channelId, from, to) : [],
          commands: await d.digestSource.commands(Object.values(DIGEST_COMMANDS), from, to),
        },
        nodeIds,
      );
    const today = await read(end - DIGEST_WINDOW_MS, end);
    const yesterday = await read(end - 2 * DIGEST_WINDOW_MS, end - DIGEST_WINDOW_MS);
    const built = await buildDigest(
      { target: label, now: new Date(end), timeZone: opts.timeZone, today, yesterday, chart: opts.chartDays !== 0 },
      (e) => d.logger.warn({ err: e }, 'reports: the digest chart could not be drawn'),
    );
    return { message: built.message, answered: nodeIds?.size ?? 0, failed: 0 };
  }

  function result(outcomes: Array<NodeOutcome<unknown>>, message: ReportResult['message']): ReportResult {
    const answered = outcomes.filter((o) => o.ok).length;
    return { message, answered, failed: outcomes.length - answered };
  }

  async function run(kind: ReportKind, ref: string, opts?: ReportOptions): Promise<ReportResult> {
    try {
      const r = kind === 'balance' ? await balance(ref, opts) : kind === 'channels' ? await channels(ref, opts) : await digest(ref, opts);
      count(kind, r.failed === 0 ? 'ok' : r.answered === 0 ? 'failed' : 'partial');
      return r;
    } catch (e) {
      count(kind, 'error');
      throw e;
    }
  }

  const info = (s: ReportSchedule): ScheduleInfo => ({
    id: s.id,
    kind: s.kind,
    node: s.targetLabel,
    cron: s.cron,
    timezone: s.timezone,
    unit: s.unit,
    platform: s.platform,
    channelId: s.channelId,
    createdBy: s.createdBy,
    nextRun: d.scheduler.nextRun(s),
  });

  return {
    balance: (ref, opts) => run('balance', ref, opts),
    channels: (ref, opts) => run('channels', ref, opts),
    digest: (ref, opts) => run('digest', ref, opts),
    run,
    async dashboard(page) {
      return gatherDashboard(
        await listNodes(),
        { page: page?.page, pageSize: page?.pageSize ?? DASHBOARD_PAGE_SIZE, readable: page?.readable },
        {
          nodeApi: (node) => d.services.nodeApi(node),
          snapshots: d.snapshots,
          states: d.states,
          calls: d.calls,
          timeoutMs: d.dashboardTimeoutMs,
        },
      );
    },
    async schedule(req) {
      const cronExpr = req.cron.trim().replace(/\s+/g, ' ');
      const timezone = (req.timezone ?? 'UTC').trim() || 'UTC';
      checkCron(cronExpr, timezone);
      const existing = await d.schedules.forChannel(req.platform, req.channelId);
      if (existing.length >= d.maxSchedulesPerChannel) {
        throw new UserError(
          'conflict',
          `This channel already has ${d.maxSchedulesPerChannel} report schedules.`,
          'Remove one first: /rln report schedules lists them, /rln report unschedule <id> removes one.',
        );
      }
      let target = 'all';
      let targetLabel = 'all';
      if (req.node.trim().toLowerCase() === 'all' && req.readable) {
        // A schedule runs later with no asker: for all it would post every node, past the asker's scope.
        throw new UserError(
          'forbidden',
          'Your read access covers only some nodes, and a schedule for all would post every node of the account here.',
          'Schedule each node you may read instead, e.g. /rln report schedule kind=balance node=<name> cron="0 9 * * *".',
        );
      }
      if (req.node.trim().toLowerCase() !== 'all') {
        const { nodes } = await targets(req.node, req.readable);
        target = nodes[0].nodeId;
        targetLabel = nodes[0].name;
      }
      const same = (await d.schedules.forChannel(req.platform, req.channelId)).find(
        (s) => s.kind === req.kind && s.target === target && s.cron === cronExpr && s.timezone === timezone,
      );
      if (same) {
        throw new UserError(
          'conflict',
          `This channel already has that schedule: ${same.id}, the ${same.kind} report for ${same.targetLabel}, ${describeCron(same.cron, same.timezone)}.`,
          `Keep it, or remove it first with /rln report unschedule ${same.id}.`,
          { id: same.id },
        );
      }
      const stored = await d.schedules.add({
        platform: req.platform,
        channelId: req.channelId,
        kind: req.kind,
        target,
        targetLabel,
        cron: cronExpr,
        timezone,
        unit: req.unit ?? 'sat',
        createdBy: req.createdBy,
        createdAt: new Date(d.now()),
      });
      d.scheduler.add(stored);
      d.logger.info({ scheduleId: stored.id, kind: stored.kind, target, cron: cronExpr, tz: timezone }, 'report scheduled');
      return info(stored);
    },
    async schedules(platform, channelId) {
      return (await d.schedules.forChannel(platform, channelId)).map(info);
    },
    async unschedule(platform, channelId, id) {
      const s = await d.schedules.get(id);
      if (!s || s.platform !== platform || s.channelId !== channelId) {
        throw new UserError('invalid_arguments', `This channel has no report schedule ${id}.`, 'See /rln report schedules for the ids.', {
          id,
        });
      }
      d.scheduler.remove(id);
      await d.schedules.remove(id);
      d.logger.info({ scheduleId: id }, 'report unscheduled');
      return info(s);
    },
  };
}
