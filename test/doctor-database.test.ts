/**
 * `npm run doctor` and the database: SQLite by default, PostgreSQL with DATABASE_URL, against a
 * real server (the run's embedded PostgreSQL). The password never appears in what it prints.
 */
import { describe, it, expect } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runDoctor } from '../src/doctor.js';
import { newPostgresUrl } from './support/databases.js';

const doctor = async (env: Record<string, string>) => {
  const lines: string[] = [];
  const code = await runDoctor({ env, out: (l) => lines.push(l), timeoutMs: 3_000 });
  return { code, text: lines.join('\n') };
};

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

describe('npm run doctor: the database', () => {
  it('SQLite (no DATABASE_URL): writable, with the schema version it expects', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rln-doctor-db-'));
    const { code, text } = await doctor({ DATABASE_PATH: join(dir, 'bot.db') });
    expect(text).toMatch(/✓ database \(SQLite\) at .*bot\.db: writable, schema version \d+ \(the version this build expects\)/);
    expect(code).toBe(0);
  });

  it('PostgreSQL: connects, migrates and reports the schema version, without the password', async () => {
    const url = await newPostgresUrl('doctor');
    const password = decodeURIComponent(new URL(url).password);
    const { code, text } = await doctor({ DATABASE_URL: url });
    expect(text).toMatch(/✓ database \(PostgreSQL\) at postgres:\/\/postgres@127\.0\.0\.1:\d+\/doctor\w*: connected, schema version \d+ \(the version this build expects\)/);
    expect(text).not.toContain(password);
    expect(code).toBe(0);
  });

  it('PostgreSQL with a wrong password: refused credentials, named, never printed', async () => {
    const u = new URL(await newPostgresUrl('doctor'));
    u.password = 'wrong-password-123456';
    const { code, text } = await doctor({ DATABASE_URL: u.toString() });
    expect(code).toBe(1);
    expect(text).toMatch(/✗ database \(PostgreSQL\) at postgres:\/\/postgres@.*refused the credentials of user "postgres".*Check the user and password in DATABASE_URL/);
    expect(text).not.toContain('wrong-password-123456');
  });

  it('PostgreSQL on a closed port: unreachable, with what to check', async () => {
    const port = await closedPort();
    const { code, text } = await doctor({ DATABASE_URL: `postgres://bot:secret-pw-98765@127.0.0.1:${port}/rln` });
    expect(code).toBe(1);
    expect(text).toMatch(new RegExp(`✗ database \\(PostgreSQL\\) at postgres://bot@127\\.0\\.0\\.1:${port}/rln: unreachable \\(ECONNREFUSED\\)\\. Check the host and port in DATABASE_URL`));
    expect(text).not.toContain('secret-pw-98765');
  });

  it('a DATABASE_URL that is not PostgreSQL is a configuration problem naming the variable', async () => {
    const { code, text } = await doctor({ DATABASE_URL: 'mysql://u:hunter2hunter2@db/x' });
    expect(code).toBe(1);
    expect(text).toMatch(/DATABASE_URL: DATABASE_URL must be a PostgreSQL URL/);
    expect(text).not.toContain('hunter2hunter2');
  });
});
