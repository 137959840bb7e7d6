/**
 * End to end in the terminal: the real app (src/app/create-app.ts) against the emulator, reports typed
 * in the shell, and a schedule whose report comes back through the outbox and the notifier.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PassThrough } from 'node:stream';
import { startHarness, type Harness } from '../support/harness.js';
import { createLogger } from '../../src/log.js';
import { waitFor } from '../support/wait-for.js';
const logs = new PassThrough();
let logText = '';
logs.on('data', (c: Buffer) => (logText += c.toString()));

let h: Harness;
const input = new PassThrough();
const output = new PassThrough();
let text = '';
output.on('data', (c: Buffer) => (text += c.toString()));

async function until(re: RegExp, from = 0, ms = 8_000): Promise<string> {
  await waitFor(() => re.test(text.slice(from)), {
    timeout: ms,
    interval: 20,
    what: () => `the terminal to show ${re}:\n${text.slice(from)}\nlog:\n${logText}`,
  });
  return text.slice(from);
}

beforeAll(async () => {
  h = await startHarness({
    emulator: { seed: 'demo', demoPassword: 'demo-password-1', lifecycleDelayMs: 20 },
    shell: { input, output, prompt: false },
    logger: createLogger({ level: 'warn', destination: logs }),
  });
}, 90_000);
afterAll(async () => {
  input.end();
  await h?.close();
});

describe('reports in the terminal', () => {
  it('answers report balance all, with the paused node on one line', async () => {
    const from = text.length;
    input.write('report balance all\n');
    const out = await until(/carol: paused/, from);
    expect(out).toContain('Balance report · all nodes');
    expect(out).toContain('Team total');
    expect(out).toMatch(/BTC settled\s+[\d,]+/);
  });

  it('posts a scheduled report to the terminal through the outbox, and lists and removes the schedule', async () => {
    let from = text.length;
    input.write('report schedule kind=channels node=alice cron="*/1 * * * * *"\n');
    const made = await until(/Scheduled: channels report for alice/, from);
    const id = /Schedule:\s*(\d+)/.exec(made)?.[1];
    expect(id).toBeDefined();
    await until(/Channel report · alice/, from);
    from = text.length;
    input.write('report schedules\n');
    await until(new RegExp(`${id}\\s+channels\\s+alice`), from);
    from = text.length;
    input.write(`report unschedule ${id}\n`);
    await until(new RegExp(`Removed schedule ${id}`), from);
  });
});
