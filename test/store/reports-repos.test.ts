/**
 * The reports room's repositories on both engines: schedules (ids, per-channel listing, removal,
 * and the change counter every add and remove bumps in its own transaction) and snapshots
 * (latest per scope, history in time order, JSON kept exactly).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScheduleRepo, createSnapshotRepo, type AnyDb, type NewReportSchedule } from '../../src/store/index.js';
import { ENGINES, openTestDb } from '../support/databases.js';

const schedule = (over: Partial<NewReportSchedule> = {}): NewReportSchedule => ({
  platform: 'slack',
  channelId: 'C1',
  kind: 'balance',
  target: 'all',
  targetLabel: 'all',
  cron: '0 9 * * *',
  timezone: 'Europe/Rome',
  unit: 'sat',
  createdBy: 'slack:U1',
  ...over,
});

describe.each(ENGINES)('reports repositories on %s', (engine) => {
  let db: AnyDb;
  beforeAll(async () => {
    db = await openTestDb(engine);
  });
  afterAll(async () => {
    await db.close();
  });

  describe('schedules', () => {
    it('stores a schedule with a new id and reads it back whole', async () => {
      const repo = createScheduleRepo(db);
      const createdAt = new Date('2026-11-22T10:11:12.345Z');
      const a = await repo.add(schedule({ createdAt, unit: 'btc', target: 'node-1', targetLabel: 'alice', kind: 'channels' }));
      const b = await repo.add(schedule());
      expect(typeof a.id).toBe('number');
      expect(b.id).toBeGreaterThan(a.id);
      expect(await repo.get(a.id)).toEqual({
        ...schedule({ unit: 'btc', target: 'node-1', targetLabel: 'alice', kind: 'channels' }),
        id: a.id,
        createdAt,
      });
      expect(await repo.get(b.id)).toEqual(b);
      expect(await repo.get(999_999)).toBeUndefined();
    });

    it('lists a channel’s schedules in id order, and all of them, and removes one once', async () => {
      const repo = createScheduleRepo(db);
      const x1 = await repo.add(schedule({ channelId: 'CX' }));
      const y = await repo.add(schedule({ platform: 'discord', channelId: 'CX' }));
      const x2 = await repo.add(schedule({ channelId: 'CX', cron: '*/5 * * * *' }));
      expect((await repo.forChannel('slack', 'CX')).map((s) => s.id)).toEqual([x1.id, x2.id]);
      expect((await repo.forChannel('discord', 'CX')).map((s) => s.id)).toEqual([y.id]);
      expect((await repo.all()).map((s) => s.id)).toEqual(expect.arrayContaining([x1.id, y.id, x2.id]));
      const ids = (await repo.all()).map((s) => s.id);
      expect(ids).toEqual([...ids].sort((p, q) => p - q));
      expect(await repo.remove(x1.id)).toBe(true);
      expect(await repo.remove(x1.id)).toBe(false);
      expect((await repo.forChannel('slack', 'CX')).map((s) => s.id)).toEqual([x2.id]);
      expect(await repo.get(x1.id)).toBeUndefined();
    });

    it('bumps the change counter with each add and each real remove, seen through another repository on the same database', async () => {
      const a = createScheduleRepo(db);
      const b = createScheduleRepo(db);
      const g0 = await b.generation();
      const s = await a.add(schedule({ channelId: 'CG' }));
      expect(await b.generation()).toBe(g0 + 1);
      await a.remove(s.id);
      expect(await b.generation()).toBe(g0 + 2);
      await a.remove(s.id); // nothing removed: nothing changed
      expect(await b.generation()).toBe(g0 + 2);
    });

    it('rolls the counter back with an add whose transaction fails', async () => {
      const repo = createScheduleRepo(db);
      const g0 = await repo.generation();
      const before = (await repo.all()).length;
      await expect(
        db.tx(async () => {
          await repo.add(schedule({ channelId: 'CR' }));
          throw new Error('boom');
        }),
      ).rejects.toThrow('boom');
      expect(await repo.generation()).toBe(g0);
      expect(await repo.all()).toHaveLength(before);
    });
  });

  describe('snapshots', () => {
    it('answers the latest snapshot of a node, kind and scope, with its data as stored', async () => {
      const repo = createSnapshotRepo(db);
      const t0 = new Date('2026-11-20T09:00:00.000Z');
      const t1 = new Date('2026-11-21T09:00:00.000Z');
      const data = { btc: { spendable: '18446744073709551615' }, assets: [{ id: 'rgb:x', amount: '12' }], note: 'ü' };
      await repo.save({ nodeId: 'n1', kind: 'balance', takenAt: t0, data: { day: 0 } });
      await repo.save({ nodeId: 'n1', kind: 'balance', takenAt: t1, data });
      await repo.save({ nodeId: 'n1', kind: 'balance', takenAt: t0, data: { day: 'schedule' }, scope: 'schedule:3' });
      await repo.save({ nodeId: 'n1', kind: 'channels', takenAt: t0, data: { channels: [] } });
      expect(await repo.latest('n1', 'balance')).toEqual({ nodeId: 'n1', kind: 'balance', takenAt: t1, data, scope: '' });
      expect((await repo.latest('n1', 'balance', 'schedule:3'))?.data).toEqual({ day: 'schedule' });
      expect((await repo.latest('n1', 'channels'))?.data).toEqual({ channels: [] });
      expect(await repo.latest('n1', 'balance', 'schedule:4')).toBeUndefined();
      expect(await repo.latest('n2', 'balance')).toBeUndefined();
    });

    it('stores many snapshots at once, each the latest of its node', async () => {
      const repo = createSnapshotRepo(db);
      const at = new Date('2026-11-23T09:00:00.000Z');
      await repo.saveMany([]);
      await repo.saveMany(
        Array.from({ length: 50 }, (_, i) => ({
          nodeId: `many-${i}`,
          kind: 'balance' as const,
          takenAt: at,
          data: { i },
          scope: 'schedule:9',
        })),
      );
      for (const i of [0, 17, 49]) expect((await repo.latest<{ i: number }>(`many-${i}`, 'balance', 'schedule:9'))?.data).toEqual({ i });
      expect(await repo.latest('many-0', 'balance')).toBeUndefined();
    });

    it('gives the history since a time, oldest first, whatever the scope', async () => {
      const repo = createSnapshotRepo(db);
      const at = (h: number) => new Date(Date.UTC(2026, 10, 22, h));
      await repo.save({ nodeId: 'h1', kind: 'channels', takenAt: at(3), data: 3, scope: 'schedule:1' });
      await repo.save({ nodeId: 'h1', kind: 'channels', takenAt: at(1), data: 1 });
      await repo.save({ nodeId: 'h1', kind: 'channels', takenAt: at(2), data: 2 });
      await repo.save({ nodeId: 'h1', kind: 'balance', takenAt: at(2), data: 'other kind' });
      expect((await repo.history<number>('h1', 'channels', at(0))).map((s) => s.data)).toEqual([1, 2, 3]);
      expect((await repo.history<number>('h1', 'channels', at(2))).map((s) => [s.data, s.takenAt.toISOString()])).toEqual([
        [2, at(2).toISOString()],
        [3, at(3).toISOString()],
      ]);
      expect(await repo.history('h1', 'channels', at(4))).toEqual([]);
    });
  });
});
