/**
 * The terminal demo as a user meets it, through `npm start`'s standard input and output (issue 27,
 * item 9): the log never lands between the prompt and the answers (P29), the banner says what a
 * restart keeps and what it does not (P33), `npm start -- --fresh` starts from nothing, and the
 * `rln>` prompt comes back after a notification (P39).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { PassThrough } from 'node:stream';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnBot, type SpawnedBot } from '../support/spawn-bot.js';
import { waitFor } from '../support/wait-for.js';
import { loadConfig } from '../../src/config.js';
import { createApp, type App } from '../../src/app/create-app.js';
import { createLogger } from '../../src/log.js';
import { createMetrics } from '../../src/metrics.js';

const bots: SpawnedBot[] = [];
const dirs: string[] = [];
afterAll(() => {
  for (const b of bots) b.child.kill('SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** `npm start` (with `args`) in `cwd`, with no configuration: the demo, ready for a line. */
async function demo(cwd: string, args: string[] = []) {
  const bot = spawnBot(['start', ...args], { cwd, env: { PORT: '0' } });
  bots.push(bot);
  await bot.waitFor(/HTTP server: (http:\S+)/);
  return { bot, url: bot.stdout().match(/HTTP server: (http:\S+)/)![1] };
}

/** Types a line and resolves with what was printed after it once it matches. */
async function type(bot: SpawnedBot, line: string, expected: RegExp) {
  const from = bot.stdout().length;
  bot.child.stdin.write(`${line}\n`);
  return waitFor(() => (expected.test(bot.stdout().slice(from)) ? bot.stdout().slice(from) : undefined), {
    what: () => `${expected} after "${line}"; stdout:\n${bot.stdout().slice(from)}`,
  });
}

async function quit(bot: SpawnedBot) {
  bot.child.stdin.end();
  expect((await bot.exited).code).toBe(0);
}

describe('the terminal demo', () => {
  it('writes its log to a file, never JSON on the screen; says what a restart keeps; --fresh starts from nothing', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'rln-demo-terminal-'));
    dirs.push(cwd);

    const first = await demo(cwd);
    expect(first.bot.stdout()).toMatch(/Log: \S*rln-chatops\.log/);
    expect(first.bot.stdout()).toMatch(/Schedules, grants, limits, watches and the audit trail are kept across restarts/);
    expect(first.bot.stdout()).toMatch(/The nodes are not: the emulator starts again from alice, bob and carol/);
    expect(first.bot.stdout()).toMatch(/npm start -- --fresh/);
    // Something the bot logs as a warning while the user types: an unsigned service webhook.
    const refused = await fetch(`${first.url}/webhooks/service`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"eventType":"NODE_STATUS_UPDATED"}',
    });
    expect(refused.status).toBeGreaterThanOrEqual(400);
    await type(first.bot, '/rln access grant shell:otto operate', /now has the/);
    const log = join(cwd, 'data', 'rln-chatops.log');
    await waitFor(() => existsSync(log) && /"level":"warn"/.test(readFileSync(log, 'utf8')), { what: 'the warning in the log file' });
    await quit(first.bot);
    // Not one log line on the screen the chat uses, on either stream.
    expect(first.bot.stdout() + first.bot.stderr()).not.toMatch(/\{"level"/);

    // A restart keeps the bot's data, and says so.
    const second = await demo(cwd);
    expect(second.bot.stdout()).toMatch(
      /Kept from the last run, in \S*rln-chatops\.db: schedules, grants, limits, watches and the audit trail/,
    );
    expect(second.bot.stdout()).toMatch(/nodes made before are gone/);
    expect(await type(second.bot, '/rln access list', /shell:otto|Role|role/)).toMatch(/shell:otto/);
    await quit(second.bot);

    // --fresh starts from nothing: the grant is gone.
    const third = await demo(cwd, ['--fresh']);
    expect(third.bot.stdout()).toMatch(/are kept across restarts/);
    expect(third.bot.stdout()).not.toMatch(/Kept from the last run/);
    const list = await type(third.bot, '/rln access list', /shell:local|admin/);
    expect(list).not.toMatch(/shell:otto/);
    await quit(third.bot);
  }, 300_000);

  it('refuses --fresh outside the demo, deleting nothing, and an unknown option', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'rln-demo-terminal-'));
    dirs.push(cwd);
    const real = spawnBot(['start', '--fresh'], {
      cwd,
      env: { PORT: '0', SERVICE_URL: 'https://service.example', SERVICE_API_TOKEN: 't' },
    });
    bots.push(real);
    expect((await real.exited).code).toBe(2);
    expect(real.stderr()).toMatch(/--fresh works only in the demo/);
    const typo = spawnBot(['start', '--frsh'], { cwd, env: { PORT: '0' } });
    bots.push(typo);
    expect((await typo.exited).code).toBe(2);
    expect(typo.stderr()).toMatch(/Unknown option "--frsh"/);
  }, 120_000);
});

describe('the rln> prompt', () => {
  let app: App | undefined;
  afterAll(async () => {
    await app?.stop({ timeoutMs: 2_000 }).catch(() => undefined);
  });

  it('comes back after a notification printed while it waited (P39)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rln-demo-prompt-'));
    dirs.push(dir);
    const input = new PassThrough();
    const output = new PassThrough();
    let out = '';
    output.on('data', (c: Buffer) => (out += c.toString()));
    const config = loadConfig({ DATABASE_PATH: join(dir, 'bot.db'), PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent' });
    app = await createApp({
      config,
      logger: createLogger({ level: 'silent' }),
      metrics: createMetrics({ defaults: false }),
      shell: { input, output, prompt: true },
      emulator: { lifecycleDelayMs: 50 },
    });
    await app.start();
    await waitFor(() => out.endsWith('rln> '), { what: () => `the first prompt; output:\n${out}` });
    input.write('/rln watch add bob\n');
    await waitFor(() => /bob/.test(out) && out.endsWith('rln> '), { what: () => `the watch and the prompt; output:\n${out}` });
    // bob fails while the prompt waits: the incident is printed, and the prompt after it.
    const from = out.length;
    input.write('/demo fail bob\n');
    await waitFor(() => /\[#/.test(out.slice(from)), { what: () => `the notification; output:\n${out.slice(from)}` });
    await waitFor(() => out.endsWith('rln> '), { what: () => `the prompt after the notification; output:\n${out.slice(from)}` });
    const afterNotice = out.slice(out.lastIndexOf('\n[#'));
    expect(afterNotice).toMatch(/rln> $/);
  }, 120_000);
});
