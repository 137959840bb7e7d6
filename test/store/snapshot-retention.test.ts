/**
 * SNAPSHOT_RETENTION_DAYS: report snapshots older than the retention are deleted when a
 * snapshot is saved, per node and kind, on both engines with an injected clock; the
 * latest of each scope (a schedule's baseline, its own last run) is never deleted.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createSnapshotRepo, type AnyDb } from '../../src/store/index.js';
import { ENGINES, openTestDb, type EngineName } from '../support/databases.js';
import { ConfigError, loadConfig } from '../../src/config.js';

const DAY = 86_400_000;
const START = Date.parse('2026-11-01T09:00:00Z');

const opened: AnyDb[] = [];
afterEach(async () => {
  for (const db of opened.splice(0)) await db.close();
});

async function world(engine: EngineName, retentionDays?: number) {
  const db = await openTestDb(engine);
  opened.push(db);
  let t = START;
  const repo = createSnapshotRepo(db, { retentionDays, now: () => t });
  const at = (day: number) => new Date(START + day * DAY);
  const save = async (day: number, nodeId: string, scope = '', kind: 'balance' | 'channels' = 'balance') => {
    t = at(day).getTime();
    await repo.save({ nodeId, kind, takenAt: at(day), data: { day }, scope });
  };
  const days = async (nodeId: string, kind: 'balance' | 'channels' = 'balance') =>
    (await repo.history<{ day: number }>(nodeId, kind, new Date(0))).map((s) => s.data.day);
  return { repo, save, days };
}

describe.each(ENGINES)('report snapshot retention (%s)', (engine) => {
  it('deletes the snapshots older than the retention when a newer one is saved, keeping the recent ones', async () => {
    const w = await world(engine, 10);
    for (let d = 0; d <= 20; d++) await w.save(d, 'alice');
    // Saved on day 20: day 10 is exactly 10 days old and stays; days 0–9 are gone.
    expect(await w.days('alice')).toEqual([10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20]);
  });

  it('keeps 35 days by default', async () => {
    const w = await world(engine);
    for (let d = 0; d <= 40; d++) await w.save(d, 'alice');
    expect((await w.days('alice'))[0]).toBe(5);
    expect(await w.days('alice')).toHaveLength(36);
  });

  it("never deletes a schedule's own latest baseline, however old, and the change is still computed from it", async () => {
    const w = await world(engine, 10);
    // A weekly-ish schedule ran on day 0; chat reports every day after that.
    await w.save(0, 'alice', 'schedule:7');
    for (let d = 1; d <= 30; d++) await w.save(d, 'alice');
    expect((await w.repo.latest<{ day: number }>('alice', 'balance', 'schedule:7'))?.data.day).toBe(0);
    // Its next run replaces the baseline: the old one is past the retention and goes.
    await w.save(31, 'alice', 'schedule:7');
    expect((await w.repo.latest<{ day: number }>('alice', 'balance', 'schedule:7'))?.data.day).toBe(31);
    expect(await w.days('alice')).not.toContain(0);
  });

  it('prunes per node and kind: saving for one node leaves another node and kind as they were', async () => {
    const w = await world(engine, 10);
    await w.save(0, 'bob');
    await w.save(0, 'alice', '', 'channels');
    await w.save(1, 'bob');
    for (let d = 0; d <= 30; d++) await w.save(d, 'alice');
    expect(await w.days('bob')).toEqual([0, 1]);
    expect(await w.days('alice', 'channels')).toEqual([0]);
    expect((await w.days('alice'))[0]).toBe(20);
  });
});

describe('SNAPSHOT_RETENTION_DAYS', () => {
  it('reads SNAPSHOT_RETENTION_DAYS from the environment, 35 by default, refusing anything but a whole number of days', () => {
    expect(loadConfig({}).SNAPSHOT_RETENTION_DAYS).toBe(35);
    expect(loadConfig({ SNAPSHOT_RETENTION_DAYS: '90' }).SNAPSHOT_RETENTION_DAYS).toBe(90);
    for (const bad of ['0', 'a month', '1.5']) {
      try {
        loadConfig({ SNAPSHOT_RETENTION_DAYS: bad });
        expect.unreachable(`SNAPSHOT_RETENTION_DAYS=${bad} was accepted`);
      } catch (e) {
        expect(e).toBeInstanceOf(ConfigError);
        expect((e as ConfigError).problems.join('\n')).toMatch(
          /SNAPSHOT_RETENTION_DAYS: SNAPSHOT_RETENTION_DAYS must be (at least 1|a whole number of days)/,
        );
      }
    }
  });
});
