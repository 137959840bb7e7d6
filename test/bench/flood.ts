/**
 * Memory under a flood of unauthenticated traffic: the bot runs in its own process (against the
 * emulator and the fake Slack, in this one), and is sent bursts of concurrent unsigned POSTs of
 * about 1 MB to /webhooks/service and to /slack/events, while signed events keep arriving. The
 * bot's resident memory is sampled before (idle), during and after the flood, and reported as a
 * ratio to idle; signed events must still be accepted (2xx, redelivered as the service would).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmulator } from '../../src/emulator/index.js';
import { startFakeSlack } from '../fakes/slack/index.js';
import type { BenchResult } from './types.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

function rssMiB(pid: number): number {
  try {
    const kb = Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/)?.[1] ?? NaN);
    return kb / 1024;
  } catch {
    return NaN;
  }
}

/** One unsigned POST announcing `size` bytes, then sending them in chunks until done or cut off. */
function unsignedPost(port: number, path: string, size: number, chunk: Buffer, deadline: number): Promise<string> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    let status = 'no answer';
    let sent = 0;
    const finish = () => {
      s.destroy();
      resolve(status);
    };
    const timer = setTimeout(finish, Math.max(0, deadline - Date.now()));
    s.on('data', (d) => {
      const m = /^HTTP\/1\.1 (\d{3})/.exec(String(d));
      if (m) status = m[1]!;
    });
    s.on('error', () => undefined);
    s.on('close', () => {
      clearTimeout(timer);
      resolve(status);
    });
    s.on('connect', () => {
      s.write(`POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${size}\r\n\r\n`);
      const pump = () => {
        while (sent < size && !s.destroyed) {
          const n = Math.min(chunk.length, size - sent);
          sent += n;
          if (!s.write(n === chunk.length ? chunk : chunk.subarray(0, n))) return void s.once('drain', pump);
        }
        if (sent >= size) s.end();
      };
      pump();
    });
  });
}

export async function flood(opts: {
  webhookConnections: number;
  slackConnections: number;
  bodyBytes: number;
  maxSeconds: number;
}): Promise<BenchResult> {
  const emulator = await startEmulator({ seed: 'demo', lifecycleDelayMs: 30 });
  const slack = await startFakeSlack();
  const dir = mkdtempSync(join(tmpdir(), 'rln-flood-'));
  const child = spawn(process.execPath, ['--import', `${root}node_modules/tsx/dist/loader.mjs`, `${root}src/cli/main.ts`, 'start'], {
    cwd: dir,
    env: {
      PATH: process.env.PATH ?? '',
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      DATABASE_PATH: join(dir, 'bot.db'),
      SERVICE_URL: emulator.url,
      SERVICE_API_TOKEN: emulator.token,
      NODE_API_TOKEN: emulator.nodeApiToken,
      SLACK_BOT_TOKEN: 'xoxb-flood-bench',
      SLACK_SIGNING_SECRET: 'flood-bench-signing-secret',
      SLACK_API_URL: slack.apiUrl,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let err = '';
      const t = setTimeout(() => reject(new Error(`the bot did not start: ${err.slice(-2000)}`)), 30_000);
      child.stderr.on('data', (d: Buffer) => {
        if (err.length < 1e6) err += d.toString();
        const m = /"url":"(http:\/\/[^"]+)"[^\n]*rln-chatops is ready/.exec(err);
        if (m) {
          clearTimeout(t);
          resolve(m[1]);
        }
      });
    });
    const port = Number(new URL(url).port);
    const pid = child.pid!;
    const nodes = emulator.nodes() as Array<{ nodeId: string }>;
    let seq = 0;
    const signedOnce = async (): Promise<boolean> => {
      const nodeId = nodes[seq++ % nodes.length].nodeId;
      const body = Buffer.from(
        JSON.stringify({
          eventType: 'NODE_STATUS_UPDATED',
          eventTimestamp: new Date().toISOString(),
          details: { nodeId, status: 'RUNNING', seq },
          nodeId,
        }),
      );
      // As the service does: redeliver until accepted (a connection shed under load is retried).
      for (let attempt = 0; attempt < 20; attempt++) {
        try {
          const res = await fetch(`${url}/webhooks/service`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-service-signature': emulator.sign(body) },
            body: new Uint8Array(body),
          });
          if (res.status >= 200 && res.status < 300) return true;
        } catch {
          /* shed at accept: redeliver */
        }
        await new Promise((r) => setTimeout(r, 100));
      }
      return false;
    };
    // Idle: warm up, then settle.
    for (let i = 0; i < 20; i++) await signedOnce();
    await new Promise((r) => setTimeout(r, 2_000));
    const idle = rssMiB(pid);

    let peak = idle;
    const sampler = setInterval(() => {
      const v = rssMiB(pid);
      if (v > peak) peak = v;
    }, 50);
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    const deadline = Date.now() + opts.maxSeconds * 1000;
    let signedSent = 0;
    let signedAccepted = 0;
    let flooding = true;
    const signedLoop = (async () => {
      while (flooding) {
        signedSent++;
        if (await signedOnce()) signedAccepted++;
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    const t0 = Date.now();
    const statuses = new Map<string, number>();
    const count = (s: string) => statuses.set(s, (statuses.get(s) ?? 0) + 1);
    const webhookFlood = Array.from({ length: opts.webhookConnections }, () =>
      unsignedPost(port, '/webhooks/service', opts.bodyBytes, chunk, deadline).then(count),
    );
    const slackFlood = Array.from({ length: opts.slackConnections }, () =>
      unsignedPost(port, '/slack/events', opts.bodyBytes, chunk, deadline).then(count),
    );
    await Promise.all([...webhookFlood, ...slackFlood]);
    const floodMs = Date.now() - t0;
    flooding = false;
    await signedLoop;
    clearInterval(sampler);
    await new Promise((r) => setTimeout(r, 3_000));
    const after = rssMiB(pid);
    const r1 = (x: number) => Math.round(x * 10) / 10;
    return {
      name: 'unauthenticated flood',
      figures: {
        flood: `${opts.webhookConnections} × /webhooks/service + ${opts.slackConnections} × /slack/events, ${Math.round(opts.bodyBytes / 1024)} KiB each, unsigned, concurrent`,
        flood_ms: floodMs,
        answers: [...statuses].map(([s, n]) => `${s}: ${n}`).join(', '),
        idle_rss_mib: r1(idle),
        peak_rss_mib_during: r1(peak),
        rss_mib_after: r1(after),
        peak_ratio_to_idle: r1(peak / idle),
        after_ratio_to_idle: r1(after / idle),
        signed_events_accepted: `${signedAccepted}/${signedSent}`,
      },
      targets: [
        { what: 'peak RSS during the flood < 300 MiB', met: peak < 300 },
        { what: 'RSS after the flood within 1.5 × idle', met: after < idle * 1.5 },
        { what: 'every signed event sent during the flood accepted (2xx)', met: signedAccepted === signedSent && signedSent > 0 },
      ],
    };
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    await slack.close();
    await emulator.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
