/**
 * `npm run doctor` and the database: SQLite by default, PostgreSQL with DATABASE_URL, against a
 * real server (the run's embedded PostgreSQL). The password never appears in what it prints.
 */
import { describe, it, expect } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runDoctor } from '../../src/doctor/run-doctor.js';
import { openPostgres } from '../../src/store/index.js';
import { newPostgresUrl } from '../support/databases.js';

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

  it('PostgreSQL not migrated yet: connects, reports the missing versions, and migrates nothing', async () => {
    const url = await newPostgresUrl('doctor');
    const password = decodeURIComponent(new URL(url).password);
    const { code, text } = await doctor({ DATABASE_URL: url });
    expect(text).toMatch(
      /✓ database \(PostgreSQL\) at postgres:\/\/postgres@127\.0\.0\.1:\d+\/doctor\w*: connected, schema version 0, this build expects \d+ \(missing: 100, .*\): run the new version once to migrate/,
    );
    expect(text).not.toContain(password);
    expect(code).toBe(0);
    // Older replicas may still be using this database: doctor changed nothing.
    const db = await openPostgres(url, { migrate: false });
    try {
      expect(await db.value("SELECT to_regclass('schema_migrations')::text")).toBeUndefined();
    } finally {
      await db.close();
    }
  });

  it('PostgreSQL migrated: the schema version this build expects', async () => {
    const url = await newPostgresUrl('doctor');
    await (await openPostgres(url)).close();
    const { code, text } = await doctor({ DATABASE_URL: url });
    expect(text).toMatch(
      /✓ database \(PostgreSQL\) at postgres:\/\/postgres@.*: connected, schema version \d+ \(the version this build expects\)/,
    );
    expect(code).toBe(0);
  });

  it('PostgreSQL migrated by a newer version: fails, naming the versions this build does not know', async () => {
    const url = await newPostgresUrl('doctor');
    const db = await openPostgres(url);
    await db.run('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)', [
      999_999,
      'from the future',
      new Date().toISOString(),
    ]);
    await db.close();
    const { code, text } = await doctor({ DATABASE_URL: url });
    expect(text).toMatch(
      /✗ database \(PostgreSQL\) at .*: schema version 999999, but this build knows only up to \d+: the database was migrated by a newer version \(unknown: 999999\)/,
    );
    expect(code).toBe(1);
  });

  it('PostgreSQL with a wrong password: refused credentials, named, never printed', async () => {
    const u = new URL(await newPostgresUrl('doctor'));
    u.password = 'wrong-password-123456';
    const { code, text } = await doctor({ DATABASE_URL: u.toString() });
    expect(code).toBe(1);
    expect(text).toMatch(
      /✗ database \(PostgreSQL\) at postgres:\/\/postgres@.*refused the credentials of user "postgres".*Check the user and password in DATABASE_URL/,
    );
    expect(text).not.toContain('wrong-password-123456');
  });

  it('PostgreSQL on a closed port: unreachable, with what to check', async () => {
    const port = await closedPort();
    const { code, text } = await doctor({ DATABASE_URL: `postgres://bot:secret-pw-98765@127.0.0.1:${port}/rln` });
    expect(code).toBe(1);
    expect(text).toMatch(
      new RegExp(
        `✗ database \\(PostgreSQL\\) at postgres://bot@127\\.0\\.0\\.1:${port}/rln: unreachable \\(ECONNREFUSED\\)\\. Check the host and port in DATABASE_URL`,
      ),
    );
    expect(text).not.toContain('secret-pw-98765');
  });

  it('a DATABASE_URL that is not PostgreSQL is a configuration problem naming the variable', async () => {
    const { code, text } = await doctor({ DATABASE_URL: 'mysql://u:hunter2hunter2@db/x' });
    expect(code).toBe(1);
    expect(text).toMatch(/DATABASE_URL: DATABASE_URL must be a PostgreSQL URL/);
    expect(text).not.toContain('hunter2hunter2');
  });
});
