/**
 * WAL checkpoints on a worker thread (the bot's SQLite store), started once the WAL passes
 * 1 MiB: the commits on the event loop only append to the WAL, and the worker copies it into
 * the database file; closing the store stops the worker.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../src/store/index.js';
import { allMigrations } from '../../src/store/migrations/index.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const fileSize = (p: string) => statSync(p, { throwIfNoEntry: false })?.size ?? 0;

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
});
