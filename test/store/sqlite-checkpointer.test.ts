/**
 * WAL checkpoints on a worker thread (the bot's SQLite store), started once the WAL passes
 * 1 MiB: the commits on the event loop only append to the WAL, and the worker copies it into
 * the database file; closing the store stops the worker. Under a steady stream of commits the
 * WAL still starts again from its beginning: the writer pauses while the worker restarts it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { closeSync, mkdtempSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openDatabase } from '../../src/store/index.js';
import { allMigrations } from '../../src/store/migrations/index.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const fileSize = (p: string) => statSync(p, { throwIfNoEntry: false })?.size ?? 0;

/** The WAL header's checkpoint sequence number: SQLite adds one each time the WAL starts again from its beginning. */
function walRestarts(walPath: string): number {
  const fd = openSync(walPath, 'r');
  try {
    const header = Buffer.alloc(16);
    return readSync(fd, header, 0, 16, 0) === 16 ? header.readUInt32BE(12) : 0;
  } finally {
    closeSync(fd);
  }
}

async function waitFor(check: () => boolean, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) if (check()) return true;
  return check();
}

describe('SQLite background checkpoints', () => {
  it('copies committed pages into the database file from another thread, and stops with the store', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'checkpointer-'));
    dirs.push(dir);
    const path = join(dir, 'bot.db');
    const db = openDatabase(path, allMigrations, { backgroundCheckpoints: true });
    await db.exec('CREATE TABLE cp_t (v TEXT NOT NULL)');
    const before = fileSize(path);
    // ~2 MB in a few hundred pages: far below the connection's own backstop (10,000 pages).
    for (let i = 0; i < 20; i++)
      await db.tx(async () => {
        for (let j = 0; j < 100; j++) await db.run('INSERT INTO cp_t (v) VALUES (?)', ['x'.repeat(1000)]);
      });
    expect(fileSize(`${path}-wal`)).toBeGreaterThan(1_000_000);
    expect(await waitFor(() => fileSize(path) > before + 1_500_000, 5_000)).toBe(true);
    expect(await db.value<number>('SELECT COUNT(*) FROM cp_t')).toBe(2000);
    await db.close();
    // Reopened (without the worker): everything committed is there.
    const again = openDatabase(path);
    expect(await again.value<number>('SELECT COUNT(*) FROM cp_t')).toBe(2000);
    await again.close();
  });

  it('makes the WAL start again under a steady stream of commits, pausing the writer (not the event loop) meanwhile', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'checkpointer-'));
    dirs.push(dir);
    const path = join(dir, 'bot.db');
    const wal = `${path}-wal`;
    // Restart at 300 pages (the bot's: 4,096), far below the connection's own backstop.
    const db = openDatabase(path, allMigrations, { backgroundCheckpoints: true, walRestartPages: 300 });
    await db.exec('CREATE TABLE cp_t (v TEXT NOT NULL)');
    // Each pause the checkpointer asks of the writer, and whether the first commit after it
    // wrote the WAL from its beginning (SQLite's restart count in the WAL header went up).
    const sql = db as unknown as { pause(work: () => Promise<void>): Promise<void> };
    const pause = sql.pause.bind(sql);
    const pauses: Array<{ before: number; restarted?: boolean }> = [];
    sql.pause = (work) =>
      pause(async () => {
        pauses.push({ before: walRestarts(wal) });
        await work();
      });
    let commits = 0;
    let reads = 0;
    const commit = async () => {
      await db.tx(async () => {
        for (let j = 0; j < 3; j++) await db.run('INSERT INTO cp_t (v) VALUES (?)', ['x'.repeat(1000)]);
      });
      commits++;
      const last = pauses[pauses.length - 1];
      if (last && last.restarted === undefined) last.restarted = walRestarts(wal) > last.before;
      if ((await db.value<number>('SELECT COUNT(*) FROM cp_t')) === commits * 3) reads++;
      // The event loop goes on (the worker's messages are heard), but never waits for a timer.
      await new Promise((r) => setImmediate(r));
    };
    // Commits one after another, a page or so each, with reads between them, until the writer
    // has paused three times (or 8,000 commits, below the connection's own backstop of 10,000
    // pages: SQLite restarts the WAL by itself at moments when it is fully copied, but the
    // writer's pause makes sure of it).
    while (commits < 8_000 && pauses.filter((p) => p.restarted !== undefined).length < 3) await commit();
    expect(pauses.length).toBeGreaterThanOrEqual(3);
    expect(pauses.slice(0, 3).map((p) => p.restarted)).toEqual([true, true, true]);
    // Every read between the commits saw every row committed before it.
    expect(reads).toBe(commits);
    await db.close();
    const again = openDatabase(path);
    expect(await again.value<number>('SELECT COUNT(*) FROM cp_t')).toBe(commits * 3);
    await again.close();
  });

  it('keeps the writer paused while a slow checkpoint holds the write lock past the bound, so the event loop never waits for it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'checkpointer-'));
    dirs.push(dir);
    const path = join(dir, 'bot.db');
    // The checkpoint holds the write lock 2 s, as one on a slow disk does; the bound on a pause is 200 ms.
    const db = openDatabase(path, allMigrations, {
      backgroundCheckpoints: true,
      walRestartPages: 300,
      checkpointTest: { boundMs: 200, holdMs: 2_000 },
    });
    await db.exec('CREATE TABLE cp_t (v TEXT NOT NULL)');
    const sql = db as unknown as { pause(work: () => Promise<void>): Promise<void> };
    const pause = sql.pause.bind(sql);
    let began!: () => void;
    const paused = new Promise<void>((r) => (began = r));
    let pauses = 0;
    sql.pause = (work) =>
      pause(async () => {
        if (pauses++ === 0) began();
        await work();
      });
    // Another connection, which never waits: does something hold the write lock now?
    const probe = new Database(path);
    probe.pragma('busy_timeout = 0');
    const lockHeld = () => {
      try {
        probe.exec('BEGIN IMMEDIATE');
        probe.exec('ROLLBACK');
        return false;
      } catch {
        return true;
      }
    };
    let commits = 0;
    const commit = () =>
      db.tx(async () => {
        for (let j = 0; j < 3; j++) await db.run('INSERT INTO cp_t (v) VALUES (?)', ['x'.repeat(1000)]);
      });
    // Commits one after another until the checkpointer asks for its first pause.
    const writer = (async () => {
      while (pauses === 0 && commits < 8_000) {
        await commit();
        commits++;
        await new Promise((r) => setImmediate(r));
      }
    })();
    await Promise.race([paused, writer]);
    expect(pauses).toBeGreaterThan(0);
    // A write asked for during the pause, and a timer past the bound: if the writer resumed at
    // the bound, its BEGIN would wait for the lock synchronously and the timer would run only
    // after the checkpoint let go.
    const write = commit().then(() => commits++);
    const heldWhenTimerRan = await new Promise<boolean>((r) => setTimeout(() => r(lockHeld()), 500));
    await Promise.all([writer, write]);
    expect(heldWhenTimerRan).toBe(true);
    expect(await db.value<number>('SELECT COUNT(*) FROM cp_t')).toBe(commits * 3);
    probe.close();
    await db.close();
  });

  it("waits for the writer's pause: no query runs until the work given to it ends", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'checkpointer-'));
    dirs.push(dir);
    const db = openDatabase(join(dir, 'bot.db'));
    await db.exec('CREATE TABLE cp_t (v TEXT NOT NULL)');
    const sql = db as unknown as { pause(work: () => Promise<void>): Promise<void> };
    let release!: () => void;
    let paused!: () => void;
    const inPause = new Promise<void>((r) => (paused = r));
    const pause = sql.pause(
      () =>
        new Promise<void>((r) => {
          release = r;
          paused();
        }),
    );
    await inPause;
    const order: string[] = [];
    const insert = db.run('INSERT INTO cp_t (v) VALUES (?)', ['a']).then(() => order.push('insert'));
    const tx = db.tx(async () => void (await db.run('INSERT INTO cp_t (v) VALUES (?)', ['b']))).then(() => order.push('tx'));
    // Many turns of the event loop: neither has run.
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    expect(order).toEqual([]);
    order.push('released');
    release();
    await Promise.all([pause, insert, tx]);
    expect(order[0]).toBe('released');
    expect(await db.value<number>('SELECT COUNT(*) FROM cp_t')).toBe(2);
    await db.close();
  });
});
