/**
 * Report schedules: which report is posted to which channel, when. Every add and remove bumps
 * the `report_schedules` change counter in the same transaction, so the scheduler of every
 * replica sharing the database sees that its set of schedules is stale and reloads it.
 */
import type { AnyDb } from './database.js';
import { createGenerations } from './leases.js';
import type { Platform } from '../vocabulary/index.js';

export type ScheduleKind = 'balance' | 'channels' | 'digest';

export interface ReportSchedule {
  id: number;
  platform: Platform;
  channelId: string;
  kind: ScheduleKind;
  /** `all`, or the node's id. */
  target: string;
  /** What to call the target: `all` or the node's name at the time it was scheduled. */
  targetLabel: string;
  cron: string;
  timezone: string;
  unit: 'sat' | 'btc';
  createdBy: string;
  createdAt: Date;
}

export type NewReportSchedule = Omit<ReportSchedule, 'id' | 'createdAt'> & { createdAt?: Date };

export interface ScheduleRepo {
  add(s: NewReportSchedule): Promise<ReportSchedule>;
  get(id: number): Promise<ReportSchedule | undefined>;
  remove(id: number): Promise<boolean>;
  forChannel(platform: Platform, channelId: string): Promise<ReportSchedule[]>;
  all(): Promise<ReportSchedule[]>;
  /** Counts the adds and removes (of any replica): a scheduler reloads when it moved. */
  generation(): Promise<number>;
}

/** The change counter of the schedules (store_generations). */
export const SCHEDULES_GENERATION = 'report_schedules';

interface Row {
  id: number;
  platform: Platform;
  channel_id: string;
  kind: ScheduleKind;
  target: string;
  target_label: string;
  cron: string;
  timezone: string;
  unit: 'sat' | 'btc';
  created_by: string;
  created_at: string;
}

const COLUMNS = 'id, platform, channel_id, kind, target, target_label, cron, timezone, unit, created_by, created_at';

const fromRow = (r: Row): ReportSchedule => ({
  id: Number(r.id),
  platform: r.platform,
  channelId: r.channel_id,
  kind: r.kind,
  target: r.target,
  targetLabel: r.target_label,
  cron: r.cron,
  timezone: r.timezone,
  unit: r.unit === 'btc' ? 'btc' : 'sat',
  createdBy: r.created_by,
  createdAt: new Date(r.created_at),
});

export function createScheduleRepo(db: AnyDb): ScheduleRepo {
  const generations = createGenerations(db);
  return {
    async add(s) {
      const createdAt = s.createdAt ?? new Date();
      return db.tx(async () => {
        const r = await db.run(
          `INSERT INTO report_schedules (platform, channel_id, kind, target, target_label, cron, timezone, unit, created_by, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
          [s.platform, s.channelId, s.kind, s.target, s.targetLabel, s.cron, s.timezone, s.unit, s.createdBy, createdAt.toISOString()],
        );
        await generations.bump(SCHEDULES_GENERATION);
        return { ...s, id: Number(r.rows[0].id), createdAt };
      });
    },
    async get(id) {
      const r = await db.get<Row>(`SELECT ${COLUMNS} FROM report_schedules WHERE id = ?`, [id]);
      return r ? fromRow(r) : undefined;
    },
    async remove(id) {
      return db.tx(async () => {
        const removed = (await db.run('DELETE FROM report_schedules WHERE id = ?', [id])).changes > 0;
        if (removed) await generations.bump(SCHEDULES_GENERATION);
        return removed;
      });
    },
    async forChannel(platform, channelId) {
      return (
        await db.all<Row>(`SELECT ${COLUMNS} FROM report_schedules WHERE platform = ? AND channel_id = ? ORDER BY id`, [
          platform,
          channelId,
        ])
      ).map(fromRow);
    },
    async all() {
      return (await db.all<Row>(`SELECT ${COLUMNS} FROM report_schedules ORDER BY id`)).map(fromRow);
    },
    generation: () => generations.current(SCHEDULES_GENERATION),
  };
}
