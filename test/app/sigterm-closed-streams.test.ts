import { describe, it, expect } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnBot } from '../support/spawn-bot.js';

describe('SIGTERM with no reader on the standard streams', () => {
  it('exits 0 when the readers of stdout and stderr are gone (EPIPE on every log line)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rln-epipe-'));
    const bot = spawnBot(['start'], { cwd: dir, env: { PORT: '0', DATABASE_PATH: join(dir, 'bot.db'), LOG_LEVEL: 'debug' } });
    await bot.waitFor(/HTTP server: (http:\/\/[^\s]+)/);
    // Close our ends of the pipes: from now on every write of the bot fails with EPIPE.
    bot.child.stdout.destroy();
    bot.child.stderr.destroy();
    await new Promise((r) => setTimeout(r, 200));
    bot.child.kill('SIGTERM');
    // The bot's own hard stop is at 10 s (its own timer, late on a loaded machine); a hang shows as
    // no exit at all.
    const hung = new Promise<'hung'>((r) => setTimeout(() => r('hung'), 60_000).unref());
    const outcome = await Promise.race([bot.exited, hung]);
    if (outcome === 'hung') bot.child.kill('SIGKILL');
    expect(outcome).toEqual({ code: 0, signal: null });
  }, 150_000);
});
