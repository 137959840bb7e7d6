import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/index.js';

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length) rmSync(dirs.pop()!, { recursive: true, force: true });
});

const mode = (p: string) => statSync(p).mode & 0o777;

describe('database file permissions', () => {
  it('creates the data folder 0700 and the database, its WAL and shared-memory files 0600', async () => {
    const base = mkdtempSync(join(tmpdir(), 'rln-perm-'));
    dirs.push(base);
    const path = join(base, 'data', 'rln-chatops.db');
    const db = openDatabase(path);
    await db.run('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)', [99_999, 'write to create the WAL', 'now']);
    expect(mode(join(base, 'data'))).toBe(0o700);
    expect(mode(path)).toBe(0o600);
    expect(mode(`${path}-wal`)).toBe(0o600);
    expect(mode(`${path}-shm`)).toBe(0o600);
    void db.close();
  });

  it('tightens an existing database file that other users could read', async () => {
    const base = mkdtempSync(join(tmpdir(), 'rln-perm-'));
    dirs.push(base);
    const path = join(base, 'old.db');
    void openDatabase(path).close();
    const { chmodSync } = await import('node:fs');
    chmodSync(path, 0o644);
    void openDatabase(path).close();
    expect(mode(path)).toBe(0o600);
  });
});
