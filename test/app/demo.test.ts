import { describe, it, expect } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnBot } from '../support/spawn-bot.js';

describe('the demo (npm start with no configuration)', () => {
  it('starts with no environment, shows the demo banner and answers a command typed on standard input', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'rln-demo-'));
    // No variables at all but PATH/HOME: no SERVICE_URL, no chat credentials. PORT=0 only
    // so parallel test files never fight over 3000.
    const bot = spawnBot(['start'], { cwd, env: { PORT: '0' } });
    await bot.waitFor(/DEMO/);
    // The banner comes first, before any prompt or output of the terminal.
    expect(bot.stdout().trimStart().startsWith('┌')).toBe(true);
    bot.child.stdin.write('/rln node list\n');
    // The answer: a table of the three demo nodes with their status.
    const answer = (await bot.waitFor(/alice[^\n]*RUNNING[\s\S]*carol[^\n]*PAUSED/)).toString();
    expect(answer).toMatch(/bob[^\n]*RUNNING/);
    bot.child.stdin.end();
    const { code } = await bot.exited;
    expect(code).toBe(0);
    expect(bot.stdout() + bot.stderr()).not.toMatch(/\n\s+at .+\(.+:\d+:\d+\)/); // no stack trace
    // The terminal demo keeps info logs off the screen it shares with the answers.
    expect(bot.stderr()).not.toMatch(/"level":"info"/);
  }, 150_000);

  it('lists every configuration problem at once and exits non-zero without a stack trace', async () => {
    const bot = spawnBot(['start'], {
      env: { PORT: 'not-a-port', SERVICE_URL: 'ftp://x', PUBLIC_URL: 'http://insecure.example', ADMIN_USERS: 'bob' },
    });
    const { code } = await bot.exited;
    expect(code).not.toBe(0);
    const err = bot.stderr();
    expect(err).toMatch(/PORT/);
    expect(err).toMatch(/SERVICE_URL/);
    expect(err).toMatch(/PUBLIC_URL must be HTTPS/);
    expect(err).toMatch(/ADMIN_USERS/);
    expect(err).not.toMatch(/\n\s+at .+:\d+:\d+/);
  }, 120_000);
});
