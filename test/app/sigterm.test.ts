import { describe, it, expect } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnBot } from '../support/spawn-bot.js';

describe('SIGTERM', () => {
  it('drains, closes the database and exits 0 well within 10 s', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rln-term-'));
    const bot = spawnBot(['start'], { cwd: dir, env: { PORT: '0', DATABASE_PATH: join(dir, 'bot.db'), LOG_LEVEL: 'info' } });
    const line = await bot.waitFor(/HTTP server: (http:\/\/[^\s]+)/);
    const url = line.replace('HTTP server: ', '');
    const health = await fetch(`${url}/healthz`);
    expect(health.status).toBe(200);
    bot.child.kill('SIGTERM');
    const { code, signal } = await bot.exited;
    expect(signal).toBeNull();
    expect(code).toBe(0);
    // The clean path, not the 10 s hard stop in cli.ts (which also exits 0): only a completed
    // stop logs this line (the terminal demo logs to a file beside its database, off the screen).
    expect(readFileSync(join(dir, 'rln-chatops.log'), 'utf8')).toMatch(/"msg":"rln-chatops stopped"/);
    // The database was closed: SQLite folds the WAL back into the file and removes it on a clean close.
    const wal = join(dir, 'bot.db-wal');
    expect(!existsSync(wal) || statSync(wal).size === 0).toBe(true);
    expect(statSync(join(dir, 'bot.db')).size).toBeGreaterThan(0);
  }, 150_000);
});
