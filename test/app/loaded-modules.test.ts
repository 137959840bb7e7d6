/**
 * What the bot loads is its idle memory (issue 18): a bot with a SERVICE_URL, in Slack HTTP
 * mode, loads neither the built-in emulator (the demo's) nor discord.js, nor the doctor, nor
 * the YAML parser (no YAML credentials file). Read from the modules the bot process itself
 * loaded (a loader hook records them), not from timings.
 */
import { describe, it, expect } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnBot } from '../support/spawn-bot.js';
import { waitFor } from '../support/wait-for.js';
import { startFakeSlack } from '../fakes/slack/index.js';
import { startEmulator } from '../../src/emulator/index.js';

/** Preloaded into the bot (NODE_OPTIONS=--import): each module its ES loader loads, a line of `list`. */
function recorder(list: string): string {
  const hooks = `import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  if (!url.startsWith('node:')) appendFileSync(${JSON.stringify(list)}, url + '\\n');
  return next(url, context);
}`;
  return `import { register } from 'node:module';\nregister(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hooks)}`)});\n`;
}

describe('modules loaded at start', () => {
  it('a bot with a service and Slack over HTTP loads neither the emulator, nor discord.js, nor the doctor', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rln-modules-'));
    const slack = await startFakeSlack();
    const emulator = await startEmulator({ seed: 'none' });
    const list = join(dir, 'modules.txt');
    writeFileSync(join(dir, 'recorder.mjs'), recorder(list));
    const bot = spawnBot(['start'], {
      cwd: dir,
      env: {
        NODE_OPTIONS: `--import=${join(dir, 'recorder.mjs')}`,
        PORT: '0',
        HOST: '127.0.0.1',
        DATABASE_PATH: join(dir, 'bot.db'),
        SERVICE_URL: emulator.url,
        SERVICE_API_TOKEN: emulator.token,
        NODE_API_TOKEN: emulator.nodeApiToken,
        SLACK_BOT_TOKEN: 'xoxb-test',
        SLACK_SIGNING_SECRET: 'secret',
        SLACK_API_URL: slack.apiUrl,
        LOG_LEVEL: 'info',
      },
    });
    try {
      await waitFor(() => /rln-chatops is ready/.test(bot.stderr()), {
        timeout: 90_000,
        what: () => `the bot ready; stderr:\n${bot.stderr().slice(-2000)}`,
      });
      const modules = readFileSync(list, 'utf8').split('\n').filter(Boolean);
      // The recorder saw the bot's own modules and the adapter that is configured.
      expect(modules.some((u) => u.includes('/src/chat/slack/'))).toBe(true);
      expect(modules.some((u) => u.includes('/node_modules/@slack/bolt/'))).toBe(true);
      expect(modules.filter((u) => u.includes('/src/emulator/'))).toEqual([]);
      expect(modules.filter((u) => /\/node_modules\/(discord\.js|@discordjs)\//.test(u))).toEqual([]);
      expect(modules.filter((u) => u.includes('/src/chat/discord/') || u.includes('/src/doctor/'))).toEqual([]);
      // No NODE_CREDENTIALS_FILE: no YAML parser either.
      expect(modules.filter((u) => u.includes('/node_modules/yaml/'))).toEqual([]);
    } finally {
      bot.child.kill('SIGTERM');
      await bot.exited;
      await slack.close();
      await emulator.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 150_000);
});
