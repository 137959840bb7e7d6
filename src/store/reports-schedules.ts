/** Report schedules: which report is posted to which channel, when. */
import type { Db } from './database.js';
import type { Platform } from '../core/index.js';

export type ScheduleKind = 'balance' | 'channels';

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
  add(s: NewReportSchedule): ReportSchedule;
  get(id: number): ReportSchedule | undefined;
  remove(id: number): boolean;
  forChannel(platform: Platform, channelId: string): ReportSchedule[];
  all(): ReportSchedule[];
}

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

const fromRow = (r: Row): ReportSchedule => ({
  id: r.id,
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

export function createScheduleRepo(db: Db): ScheduleRepo {
  const insert = db.prepare(
    `INSERT INTO report_schedules (platform, channel_id, kind, target, target_label, cron, timezone, unit, created_by, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const byId = db.prepare('SELECT * FROM report_schedules WHERE id = ?');
  const del = db.prepare('DELETE FROM report_schedules WHERE id = ?');
  const byChannel = db.prepare('SELECT * FROM report_schedules WHERE platform = ? AND channel_id = ? ORDER BY id');
  const every = db.prepare('SELECT * FROM report_schedules ORDER BY id');
  return {
    add(s) {
      const createdAt = s.createdAt ?? new Date();
      const info = insert.run(s.platform, s.channelId, s.kind, s.target, s.targetLabel, s.cron, s.timezone, s.unit, s.createdBy, createdAt.toISOString());
      return { ...s, id: Number(info.lastInsertRowid), createdAt };
    },
    get(id) {
      const r = byId.get(id) as Row | undefined;
      return r ? fromRow(r) : undefined;
    },
    remove(id) {
      return del.run(id).changes > 0;
    },
    forChannel(platform, channelId) {
      return (byChannel.all(platform, channelId) as Row[]).map(fromRow);
    },
    all() {
      return (every.all() as Row[]).map(fromRow);
    },
  };
}
