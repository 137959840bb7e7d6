/**
 * A failing test fails the run. vitest is started as `npm test` starts it, with the project's own
 * config and so its global setup (the embedded PostgreSQL server, whose exit hook once turned
 * every exit code into 0), on a fixture test that fails. The same run on a passing file exits 0,
 * so the check is about the failure and not about the set-up.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const vitestBin = fileURLToPath(new URL('../../node_modules/vitest/vitest.mjs', import.meta.url));

function runVitest(file: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [vitestBin, 'run', '--project', 'unit', file], {
      cwd: root,
      env: {
        ...process.env,
        RLN_MUST_FAIL: '1',
        CI: 'true',
        VITEST: undefined,
        VITEST_WORKER_ID: undefined,
        VITEST_POOL_ID: undefined,
        NODE_ENV: undefined,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, output }));
  });
}

describe('npm test', () => {
  // Both runs at once: each starts vitest and a PostgreSQL server, which is slow on a busy machine.
  let failing: ReturnType<typeof runVitest>;
  let passing: ReturnType<typeof runVitest>;
  beforeAll(() => {
    failing = runVitest('test/project/must-fail/fails.test.ts');
    passing = runVitest('test/project/must-fail/passes.test.ts');
  });

  it('exits non-zero when a test fails, with the global set-up loaded', { timeout: 240_000 }, async () => {
    const run = await failing;
    expect(run.output).toMatch(/1 failed/);
    expect(run.code).not.toBe(0);
  });

  it('exits 0 when the same run passes', { timeout: 240_000 }, async () => {
    const run = await passing;
    expect(run.output).toMatch(/1 passed/);
    expect(run.code).toBe(0);
  });
});
