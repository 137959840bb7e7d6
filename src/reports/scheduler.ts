/**
 * Runs stored report schedules with node-cron. On start every stored schedule is registered
 * again; runs missed while the bot was down are not replayed (the next report still shows
 * the change since the last snapshot, which is all a missed run would have added).
 */
import cron, { type ScheduledTask } from 'node-cron';
import type { Logger } from '../log.js';
import type { ReportSchedule, ScheduleRepo } from '../store/index.js';
import { UserError } from '../core/index.js';
import { isKnownTimeZone } from './time-zone.js';

export interface ReportScheduler {
  start(): void;
  stop(): void;
  /** Starts running a schedule just stored (no-op until start()). */
  add(s: ReportSchedule): void;
  remove(id: number): void;
  /** The next time the schedule runs, whether or not the scheduler is running. */
  nextRun(s: Pick<ReportSchedule, 'cron' | 'timezone'>): Date | undefined;
}

/** Refuses a cron expression or zone with a message that says what is wrong and what works. */
export function checkCron(expression: string, timezone: string): void {
  const expr = expression.trim();
  if (!cron.validate(expr)) {
    const detail = cron.validateDetailed(expr).errors.map((e) => e.message).join('; ');
    throw new UserError(
      'invalid_arguments',
      `"${expr}" is not a valid cron expression${detail ? `: ${detail}` : ''}.`,
      'Use 5 fields (minute hour day month weekday), e.g. cron="0 9 * * *" for 09:00 every day, or 6 with seconds first.',
      { cron: expr },
    );
  }
  if (!isKnownTimeZone(timezone)) {
    throw new UserError('invalid_arguments', `"${timezone}" is not a known time zone.`, 'Use an IANA zone name, e.g. tz=Europe/Rome or tz=UTC.', {
      tz: timezone,
    });
  }
}

export function createReportScheduler(opts: {
  schedules: ScheduleRepo;
  logger: Logger;
  /** The clock, for a firing node-cron does not date. */
  now: () => number;
  /** Runs one schedule: builds its report and hands it to the outbox. Must not throw. */
  run: (s: ReportSchedule, firedAt: Date) => Promise<void>;
}): ReportScheduler {
  const { schedules, logger } = opts;
  const tasks = new Map<number, ScheduledTask>();
  let running = false;

  const register = (s: ReportSchedule) => {
    if (tasks.has(s.id)) return;
    try {
      const task = cron.createTask(
        s.cron,
        async (ctx) => {
          try {
            await opts.run(s, ctx.date ?? new Date(opts.now()));
          } catch (e) {
            logger.error({ err: e, scheduleId: s.id }, 'scheduled report failed');
          }
        },
        { timezone: s.timezone, name: `report-${s.id}`, noOverlap: true, suppressMissedWarning: true },
      );
      tasks.set(s.id, task);
      void Promise.resolve(task.start()).catch((e) => logger.error({ err: e, scheduleId: s.id }, 'could not start a report schedule'));
    } catch (e) {
      logger.error({ err: e, scheduleId: s.id, cron: s.cron, tz: s.timezone }, 'a stored report schedule could not be registered');
    }
  };

  const unregister = (id: number) => {
    const task = tasks.get(id);
    if (!task) return;
    tasks.delete(id);
    void Promise.resolve(task.destroy()).catch(() => undefined);
  };

  return {
    start() {
      if (running) return;
      running = true;
      const all = schedules.all();
      for (const s of all) register(s);
      logger.info({ schedules: all.length }, 'report schedules registered');
    },
    stop() {
      running = false;
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
  };
}
