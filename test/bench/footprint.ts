/**
 * Footprint: time from process start to ready, and resident memory when idle, for the compiled
 * bot started as the Dockerfile starts it (its node flags and environment: processes.ts), against
 * the service and as the demo; against a bare Node process that starts an HTTP server, measured
 * in the same run (the baseline's figures are the floor for Node itself).
 */
import { spawn } from 'node:child_process';
import { readFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchResult } from './types.js';
import { startEmulatorProcess } from './emulator-process.js';
import { deployedStart } from './processes.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(status.match(/VmRSS:\s+(\d+)/)?.[1] ?? NaN);
  return kb / 1024;
}

async function measure(args: string[], env: Record<string, string>, ready: RegExp): Promise<{ readyMs: number; idleMiB: number }> {
  const cwd = mkdtempSync(join(tmpdir(), 'rln-footprint-'));
  const t0 = performance.now();
  const child = spawn(process.execPath, args, { cwd, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  try {
    const readyMs = await new Promise<number>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`not ready in 20 s: ${out}`)), 20_000);
      const onData = (d: Buffer) => {
        out += d.toString();
        if (ready.test(out)) {
          clearTimeout(t);
          resolve(performance.now() - t0);
        }
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
    });
    await new Promise((r) => setTimeout(r, 2_000));
    return { readyMs, idleMiB: rssMiB(child.pid!) };
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.on('exit', r));
  }
}

export async function footprint(): Promise<BenchResult> {
  const built = join(root, 'dist/src/cli/main.js');
  const baseline = await measure(
    ['-e', "require('http').createServer((q,s)=>s.end('ok')).listen(0,'127.0.0.1',()=>console.log('ready'))"],
    {},
    /ready/,
  );
  // The compiled bot (npm run build), as the Docker image runs it, against the service
  // (the emulator in its own process, so its memory is not counted)...
  const deployed = deployedStart();
  const args = [...deployed.nodeArgs, built, 'start'];
  const emu = await startEmulatorProcess(['--seed', 'demo']);
  let bot: { readyMs: number; idleMiB: number };
  try {
    bot = await measure(
      args,
      {
        ...deployed.env,
        PORT: '0',
        LOG_LEVEL: 'info',
        SERVICE_URL: emu.url,
        SERVICE_API_TOKEN: emu.token,
        NODE_API_TOKEN: emu.nodeApiToken,
      },
      /rln-chatops is ready/,
    );
  } finally {
    await emu.close();
  }
  // ...and the demo, which also carries the emulator in-process. Its log goes to a file, off the
  // terminal: it is ready when its banner shows the HTTP server's address.
  const demo = await measure(args, { ...deployed.env, PORT: '0', LOG_LEVEL: 'info' }, /HTTP server: http:\/\/\S+/);
  return {
    name: 'footprint',
    figures: {
      baseline_ready_ms: Math.round(baseline.readyMs),
      bot_ready_ms: Math.round(bot.readyMs),
      ready_ratio_to_baseline: Math.round((bot.readyMs / baseline.readyMs) * 10) / 10,
      baseline_idle_rss_mib: Math.round(baseline.idleMiB),
      bot_idle_rss_mib: Math.round(bot.idleMiB),
      demo_ready_ms: Math.round(demo.readyMs),
      demo_idle_rss_mib: Math.round(demo.idleMiB),
    },
    targets: [
      { what: 'start to ready < 1.5 s', met: bot.readyMs < 1500 },
      { what: 'idle RSS < 120 MiB', met: bot.idleMiB < 120 },
    ],
  };
}
