/**
 * A hostile node (issue 27): each oversize answer, sent by a real HTTP server on loopback, is
 * refused with an error naming the endpoint and the limit, a malformed list of a million
 * elements is one summarised error, and a 400 MiB log file is read up to LOG_DOWNLOAD_MAX_BYTES
 * holding only its last part as it streams; the process
 * reading them (a child of its own, so its memory is only this) stays under 300 MiB.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';

const MiB = 1024 * 1024;
const asset = (i: number) =>
  `{"asset_id":"rgb:${String(i).padStart(20, '0')}","ticker":"T${i}","name":"Token ${i}","precision":0,"issued_supply":1000,"timestamp":1,"added_at":1,"balance":{"settled":1,"future":1,"spendable":1,"offchain_outbound":0,"offchain_inbound":0}}`;

/** Writes `total` bytes made by `piece(i)` in chunks, without holding them (an endless-looking answer). */
function stream(res: import('node:http').ServerResponse, head: string, piece: (i: number) => string, total: number, tail: string): void {
  res.write(head);
  let sent = head.length;
  let i = 0;
  const more = () => {
    while (sent < total) {
      const chunk = Array.from({ length: 200 }, () => piece(i++)).join('');
      sent += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', more);
    }
    res.end(tail);
  };
  more();
}

describe('a hostile node', () => {
  let server: Server;
  let url = '';
  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      res.on('error', () => undefined);
      const path = (req.url ?? '').split('?')[0];
      if (path === '/listassets') {
        // 80 MB of assets, no length announced.
        res.writeHead(200, { 'content-type': 'application/json' });
        return stream(res, '{"nia":[', (i) => `${i ? ',' : ''}${asset(i)}`, 80 * 1000 * 1000, '],"uda":[],"cfa":[]}');
      }
      if (path === '/nodeinfo') {
        // 80 MB announced with a content-length.
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(80 * 1000 * 1000) });
        return stream(res, '{"pubkey":"', () => 'a'.repeat(1000), 80 * 1000 * 1000 - 2, '"}');
      }
      if (path === '/listchannels') {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(`{"channels":[${Array.from({ length: 1_000_000 }, () => 'null').join(',')}]}`);
      }
      if (path === '/listpeers') {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(`{"peers":[${Array.from({ length: 300_000 }, (_, i) => (i === 299_999 ? '7' : '{"pubkey":"03ab"}')).join(',')}]}`);
      }
      if (path === '/logs/rln.log' || path === '/logs/huge.log') {
        // 40 MiB of log lines (400 MiB for huge.log), a secret among the last ones; the Range asked for is ignored.
        res.writeHead(200, { 'content-type': 'text/plain' });
        const size = path === '/logs/huge.log' ? 400 * MiB : 40 * MiB;
        return stream(
          res,
          '',
          (i) => `2026-11-22T10:00:00Z INFO rgb_lightning_node: line ${i} synced to block ${800_000 + i}\n`,
          size,
          'DEBUG unlock password=hostile-tail-pw-77\nINFO the end\n',
        );
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(async () => new Promise<void>((r) => server.close(() => r())));

  it('is read within limits: clear errors, the log tail, and under 300 MiB', async () => {
    const child = fileURLToPath(new URL('../support/hostile-peer-child.ts', import.meta.url));
    const { stdout } = await promisify(execFile)(process.execPath, ['--expose-gc', '--import', 'tsx', child], {
      env: { ...process.env, HOSTILE_URL: url, NODE_OPTIONS: '' },
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
      maxBuffer: 1024 * 1024,
      timeout: 240_000,
    });
    const { outcomes, peaks, maxRssMiB } = JSON.parse(stdout.trim().split('\n').at(-1)!) as {
      outcomes: Record<string, string>;
      peaks: Record<string, number>;
      maxRssMiB: number;
    };
    expect(outcomes.listassets).toMatch(/^error: node API \/listassets answered more than 16 MiB \(NODE_API_MAX_BYTES\)/);
    expect(outcomes.nodeinfo).toMatch(/^error: node API \/nodeinfo answered more than 16 MiB \(NODE_API_MAX_BYTES\)/);
    expect(outcomes.listchannels).toMatch(
      /^error: node API \/listchannels answered an unexpected shape: field channels\[0\] of a list of 1000000: .*\(the rest was not checked\)$/,
    );
    expect(outcomes.listpeers).toMatch(/field peers\[299999\] of a list of 300000/);
    expect(outcomes.log).toContain('"truncated":true,"cutAtMax":false');
    expect(outcomes.huge).toContain('"truncated":true,"cutAtMax":true');
    expect(outcomes.log).toContain('password=[redacted]');
    expect(outcomes.log).not.toContain('hostile-tail-pw-77');
    expect(maxRssMiB, `peak resident memory after each call (MiB): ${JSON.stringify(peaks)}`).toBeLessThan(300);
  }, 300_000);
});
