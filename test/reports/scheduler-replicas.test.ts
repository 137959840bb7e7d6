/**
 * Several replicas on one database, each running every schedule: a tick is run by exactly one
 * of them (the one that claims `report:<id>:<tick>`), and a schedule added or removed through
 * one replica is picked up by the others' schedulers. Three schedulers, each with its own
 * connection, on one PostgreSQL database and on one SQLite file; the ticks come from a clock the
 * test drives (the scheduler's tick source), all three replicas firing each tick together.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createReportScheduler, nodeCronTicks, type ReportScheduler, type TickSource } from '../../src/reports/scheduler.js';
import {
  createLeases,
  createScheduleRepo,
  openDatabase,
  openPostgres,
  type AnyDb,
  type NewReportSchedule,
  type ScheduleRepo,
} from '../../src/store/index.js';
import { silentLogger } from '../../src/log.js';
import { ENGINES, newPostgresUrl, type EngineName } from '../support/databases.js';
import { waitFor } from '../support/wait-for.js';

/** A tick source the test drives: `tick(at)` fires every schedule registered on it at `at`. */
function manualTicks(): TickSource & { tick(at: Date): Promise<void>; ids(): number[] } {
  const handlers = new Map<number, (at: Date) => Promise<void>>();
  return {
    every(s, onTick) {
      handlers.set(s.id, onTick);
      return () => void handlers.delete(s.id);
    },
    async tick(at) {
      await Promise.all([...handlers.values()].map((f) => f(at)));
    },
    ids: () => [...handlers.keys()].sort((a, b) => a - b),
  };
}

interface Replica {
  name: string;
  db: AnyDb;
  repo: ScheduleRepo;
  ticks: ReturnType<typeof manualTicks>;
  scheduler: ReportScheduler;
}

const everyMinute = (channelId: string): NewReportSchedule => ({
  platform: 'slack',
  channelId,
  kind: 'balance',
  target: 'all',
  targetLabel: 'all',
  cron: '* * * * *',
  timezone: 'UTC',
  unit: 'sat',
  createdBy: 'slack:U1',
});

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const f of cleanups.splice(0).reverse()) await f();
});

/** Three replicas sharing one database of `engine`; `runs` records who ran what. */
async function replicas(engine: EngineName, runs: string[], o: { now?: () => number } = {}): Promise<Replica[]> {
  let open: () => Promise<AnyDb>;
  if (engine === 'postgres') {
    const url = await newPostgresUrl('replicas');
    open = () => openPostgres(url);
  } else {
    const dir = mkdtempSync(join(tmpdir(), 'rln-replicas-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const path = join(dir, 'shared.db');
    open = async () => openDatabase(path);
  }
  const out: Replica[] = [];
  for (const name of ['r1', 'r2', 'r3']) {
    const db = await open();
    const repo = createScheduleRepo(db);
    const ticks = manualTicks();
    const scheduler = createReportScheduler({
      schedules: repo,
      leases: createLeases(db),
      owner: name,
      logger: silentLogger,
      now: o.now ?? Date.now,
      ticks,
      reloadEveryMs: 50,
      run: async (s, tick) => {
        runs.push(`${name} ${s.id} ${tick.toISOString()}`);
      },
    });
    cleanups.push(async () => {
      scheduler.stop();
      await db.close();
    });
    out.push({ name, db, repo, ticks, scheduler });
  }
  return out;
}

// Ticks of this hour: a tick's claim lasts a day from the tick, so they must not be long past.
const HOUR = Math.floor(Date.now() / 3_600_000) * 3_600_000;
const at = (minute: number) => new Date(HOUR + minute * 60_000);
const fireAll = (rs: Replica[], tick: Date) => Promise.all(rs.map((r) => r.ticks.tick(tick)));

describe.each(ENGINES)('report schedules across three replicas on %s', (engine) => {
  it('runs a schedule every minute once per tick over three ticks, never once per replica', async () => {
    const runs: string[] = [];
    const rs = await replicas(engine, runs);
    const s = await rs[0].repo.add(everyMinute('C-TICK'));
    for (const r of rs) await r.scheduler.start();
    for (const r of rs) expect(r.ticks.ids()).toEqual([s.id]);

    for (const minute of [0, 1, 2]) await fireAll(rs, at(minute));
    expect(runs).toHaveLength(3);
    expect(runs.map((x) => x.split(' ').slice(1).join(' '))).toEqual([0, 1, 2].map((m) => `${s.id} ${at(m).toISOString()}`));
    // A late or repeated firing of a tick already run is not run again, by anyone.
    await fireAll(rs, at(1));
    expect(runs).toHaveLength(3);
    // Who ran a tick holds its claim, and only that one.
    const holder = await createLeases(rs[1].db).holder(`report:${s.id}:${at(2).toISOString()}`, at(2).getTime());
    expect(holder?.split('#')[0]).toBe(runs[2].split(' ')[0]);
  });

  it('runs a schedule added through one replica on another, and stops when it is removed through a third', async () => {
    const runs: string[] = [];
    const rs = await replicas(engine, runs);
    for (const r of rs) await r.scheduler.start();
    const [a, b, c] = rs;

    const s = await a.repo.add(everyMinute('C-ADD'));
    a.scheduler.add(s); // what the report service does on the replica that stored it
    await waitFor(() => b.ticks.ids().includes(s.id) && c.ticks.ids().includes(s.id), {
      what: 'the other replicas to load the new schedule',
    });

    // Only replica b's clock fires: b runs it.
    await b.ticks.tick(at(5));
    expect(runs).toEqual([`r2 ${s.id} ${at(5).toISOString()}`]);

    await c.repo.remove(s.id);
    c.scheduler.remove(s.id);
    await waitFor(() => !a.ticks.ids().includes(s.id) && !b.ticks.ids().includes(s.id), {
      what: 'the other replicas to drop the removed schedule',
    });
    await fireAll(rs, at(6));
    expect(runs).toHaveLength(1);
  });

  it('does not run a tick of a schedule removed through another replica before this one reloaded', async () => {
    const runs: string[] = [];
    const rs = await replicas(engine, runs);
    const [a, b] = rs;
    const s = await a.repo.add(everyMinute('C-GONE'));
    for (const r of rs) await r.scheduler.start();
    expect(b.ticks.ids()).toEqual([s.id]);
    await a.repo.remove(s.id);
    // b still has it registered (its reload has not run yet) when the tick fires there.
    expect(b.ticks.ids()).toEqual([s.id]);
    await b.ticks.tick(at(7));
    expect(runs).toEqual([]);
  });

  it('forgets the claims of old ticks', async () => {
    const runs: string[] = [];
    let t = at(0).getTime();
    const rs = await replicas(engine, runs, { now: () => t });
    const s = await rs[0].repo.add(everyMinute('C-PRUNE'));
    await rs[0].scheduler.start();
    await rs[0].ticks.tick(at(0));
    const count = () => rs[0].db.value<number>("SELECT COUNT(*) FROM store_leases WHERE name LIKE 'report:%'");
    expect(await count()).toBe(1);
    // Two days later the tick's claim (kept a day past the tick) has ended, and the next check forgets it.
    t += 2 * 86_400_000;
    await rs[0].scheduler.refresh();
    expect(await count()).toBe(0);
    expect(runs).toEqual([`r1 ${s.id} ${at(0).toISOString()}`]);
  });
});

describe('node-cron as the tick source', () => {
  it('gives each tick its scheduled time in whole seconds, the same whenever a replica fires', async () => {
    const seen: Date[] = [];
    const stop = nodeCronTicks({ logger: silentLogger, now: Date.now }).every(
      { ...everyMinute('C-CRON'), id: 1, cron: '*/1 * * * * *', createdAt: new Date() },
      async (tick) => {
        seen.push(tick);
      },
    );
    try {
      await waitFor(() => seen.length >= 2, { timeout: 5_000 });
    } finally {
      stop();
    }
    for (const d of seen) expect(d.getMilliseconds()).toBe(0);
    expect(seen[1].getTime() - seen[0].getTime()).toBe(1_000);
  });
});
