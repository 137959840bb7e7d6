/**
 * Runs stored report schedules with node-cron. On start every stored schedule is registered
 * again; runs missed while the bot was down are not replayed (the next report still shows
 * the change since the last snapshot, which is all a missed run would have added).
 *
 * Several replicas may share one PostgreSQL database, each running every schedule: before a
 * tick runs, the replica claims the lease `report:<id>:<tick>` (the tick's scheduled time, the
 * same on every replica), and only the one that wins it runs the report. A schedule added or
 * removed on one replica bumps a change counter; every scheduler checks it every few seconds
 * and reloads its set of schedules when it moved.
 */
import { randomUUID } from 'node:crypto';
import cron from 'node-cron';
import type { Logger } from '../log.js';
import type { Leases, ReportSchedule, ScheduleRepo } from '../store/index.js';
import { UserError } from '../vocabulary/index.js';
import { isKnownTimeZone } from './time-zone.js';

export interface ReportScheduler {
  start(): Promise<void>;
  stop(): void;
  /** Starts running a schedule just stored (no-op until start()). */
  add(s: ReportSchedule): void;
  remove(id: number): void;
  /** The next time the schedule runs, whether or not the scheduler is running. */
  nextRun(s: Pick<ReportSchedule, 'cron' | 'timezone'>): Date | undefined;
  /**
   * Runs one tick of a schedule (its scheduled time) if this replica wins the tick's lease;
   * true when it ran here. What the tick source calls; tests call it too.
   */
  fire(s: ReportSchedule, tick: Date): Promise<boolean>;
  /** Reloads the schedules now if another replica changed them (what the timer does). */
  refresh(): Promise<void>;
}

/**
 * Where ticks come from: node-cron in the bot, a hand-driven clock in tests. `every` calls
 * `onTick` with each tick's scheduled time until the returned function is called.
 */
export interface TickSource {
  every(s: ReportSchedule, onTick: (tick: Date) => Promise<void>): () => void;
}

/** How long a tick's claim is kept: far longer than any tick takes, so it is never won again. */
const CLAIM_MS = 24 * 3_600_000;
/** How often old claims are forgotten. */
const PRUNE_EVERY_MS = 3_600_000;

/** node-cron's ticks: its context's date is the scheduled slot (the same on every replica). */
export function nodeCronTicks(o: { logger: Logger; now: () => number }): TickSource {
  return {
    every(s, onTick) {
      const task = cron.createTask(
        s.cron,
        async (ctx) => {
          // The slot node-cron matched, whole seconds; without one, the firing time down to the minute.
          const at = ctx.date ? Math.floor(ctx.date.getTime() / 1000) * 1000 : Math.floor(o.now() / 60_000) * 60_000;
          await onTick(new Date(at));
        },
        { timezone: s.timezone, name: `report-${s.id}`, noOverlap: true, suppressMissedWarning: true },
      );
      void Promise.resolve(task.start()).catch((e) => o.logger.error({ err: e, scheduleId: s.id }, 'could not start a report schedule'));
      return () => void Promise.resolve(task.destroy()).catch(() => undefined);
    },
  };
}

/** Each cron field in words, with the values it takes. */
const CRON_FIELDS: Record<string, { name: string; range: string }> = {
  second: { name: 'second', range: '0–59' },
  minute: { name: 'minute', range: '0–59' },
  hour: { name: 'hour', range: '0–23' },
  dayOfMonth: { name: 'day of the month', range: '1–31' },
  month: { name: 'month', range: '1–12 or JAN–DEC' },
  dayOfWeek: { name: 'weekday', range: '0–7 (0 and 7 are Sunday) or SUN–SAT' },
};

/**
 * node-cron's findings in one sentence naming each field and its range: "the hour (25) must be
 * 0–23", not "25 is a invalid expression for hour" (P25).
 */
function cronProblems(errors: Array<{ field: string; value?: unknown; message: string }>): string {
  const parts = errors.map((e) => {
    const f = CRON_FIELDS[e.field];
    const v = typeof e.value === 'string' || typeof e.value === 'number' ? String(e.value) : '';
    if (f) return `the ${f.name} (${v}) must be ${f.range}${/[*/,-]/.test(v) ? ', or a list, range or step of those' : ''}`;
    const n = /expected 5 or 6 fields but got (\d+)/.exec(e.message);
    return n ? `it has ${n[1]} field${n[1] === '1' ? '' : 's'}, not 5 (or 6 with seconds first)` : e.message;
  });
  return parts.length > 1 ? `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}` : (parts[0] ?? '');
}

/** Refuses a cron expression or zone with a message that says what is wrong and what works. */
export function checkCron(expression: string, timezone: string): void {
  const expr = expression.trim();
  if (!cron.validate(expr)) {
    const detail = cronProblems(cron.validateDetailed(expr).errors);
    throw new UserError(
      'invalid_arguments',
      `"${expr}" is not a valid cron expression${detail ? `: ${detail}` : ''}.`,
      'Use 5 fields (minute hour day month weekday), e.g. cron="0 9 * * *" for 09:00 every day, or 6 with seconds first.',
      { cron: expr },
    );
  }
  if (!isKnownTimeZone(timezone)) {
    throw new UserError(
      'invalid_arguments',
      `"${timezone}" is not a known time zone.`,
      'Use an IANA zone name, e.g. tz=Europe/Rome or tz=UTC.',
      {
        tz: timezone,
      },
    );
  }
}

export function createReportScheduler(opts: {
  schedules: ScheduleRepo;
  /** Claims of the ticks, shared by the replicas. */
  leases: Leases;
  /** This process, as the holder of the claims it wins. Default a random id. */
  owner?: string;
  logger: Logger;
  /** The clock, for a firing node-cron does not date, and for the claims. */
  now: () => number;
  /** Runs one schedule: builds its report and hands it to the outbox. Must not throw. */
  run: (s: ReportSchedule, tick: Date) => Promise<void>;
  /** Default node-cron. */
  ticks?: TickSource;
  /** How often the change counter is checked. Default 5 s. */
  reloadEveryMs?: number;
}): ReportScheduler {
  const { schedules, leases, logger, now } = opts;
  const owner = opts.owner ?? `${process.pid}-${randomUUID()}`;
  const ticks = opts.ticks ?? nodeCronTicks({ logger, now });
  const tasks = new Map<number, () => void>();
  let running = false;
  let loaded: number | undefined;
  let timer: NodeJS.Timeout | undefined;
  let refreshing: Promise<void> | undefined;
  let prunedAt = 0;

  let firings = 0;
  const fire = async (s: ReportSchedule, tick: Date): Promise<boolean> => {
    const at = tick.getTime();
    // Each firing claims as itself (this process, numbered): a claim renews for the same holder,
    // and a tick fired twice, even here, must not be run twice.
    const holder = `${owner}#${++firings}`;
    try {
      if (!(await leases.claim(`report:${s.id}:${tick.toISOString()}`, holder, at + CLAIM_MS, now()))) return false;
    } catch (e) {
      logger.error({ err: e, scheduleId: s.id }, 'a scheduled report tick could not be claimed');
      return false;
    }
    try {
      // Removed through another replica since this one last reloaded: not run.
      if (!(await schedules.get(s.id))) return false;
      await opts.run(s, tick);
    } catch (e) {
      logger.error({ err: e, scheduleId: s.id }, 'scheduled report failed');
    }
    return true;
  };

  const register = (s: ReportSchedule) => {
    if (tasks.has(s.id)) return;
    try {
      tasks.set(
        s.id,
        ticks.every(s, (tick) => fire(s, tick).then(() => undefined)),
      );
    } catch (e) {
      logger.error({ err: e, scheduleId: s.id, cron: s.cron, tz: s.timezone }, 'a stored report schedule could not be registered');
    }
  };

  const unregister = (id: number) => {
    const stop = tasks.get(id);
    if (!stop) return;
    tasks.delete(id);
    stop();
  };

  /** Registers what is stored and drops what is gone (read after the counter, so no change is missed). */
  const load = async () => {
    const generation = await schedules.generation();
    const all = await schedules.all();
    if (!running) return all.length;
    const ids = new Set(all.map((s) => s.id));
    for (const id of [...tasks.keys()]) if (!ids.has(id)) unregister(id);
    for (const s of all) register(s);
    loaded = generation;
    return all.length;
  };

  const check = async () => {
    if (!running) return;
    if ((await schedules.generation()) !== loaded) await load();
    if (now() - prunedAt >= PRUNE_EVERY_MS) {
      prunedAt = now();
      await leases.prune(now());
    }
  };

  const refresh = (): Promise<void> => {
    refreshing ??= check()
      .catch((e) => logger.warn({ err: e }, 'report schedules could not be reloaded'))
      .finally(() => (refreshing = undefined));
    return refreshing;
  };

  return {
    async start() {
      if (running) return;
      running = true;
      const count = await load();
      logger.info({ schedules: count }, 'report schedules registered');
      if (!running) return;
      timer = setInterval(() => void refresh(), opts.reloadEveryMs ?? 5_000);
      timer.unref();
    },
    stop() {
      running = false;
      if (timer) clearInterval(timer);
      timer = undefined;
      loaded = undefined;
      for (const id of [...tasks.keys()]) unregister(id);
    },
    add(s) {
      if (running) register(s);
    },
    remove(id) {
      unregister(id);
    },
    nextRun(s) {
      try {
        const probe = cron.createTask(s.cron, () => undefined, { timezone: s.timezone });
        try {
          return probe.getNextRuns(1)[0];
        } finally {
          void Promise.resolve(probe.destroy()).catch(() => undefined);
        }
      } catch {
        return undefined;
      }
    },
    fire,
    refresh,
  };
}
