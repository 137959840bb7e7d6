/**
 * Opening the store: SQLite by default (one file, WAL, one process), PostgreSQL with
 * DATABASE_URL (several replicas share it). Both run the same migrations (migrations/<room>.ts,
 * each version written once with its engine differences inside), in version order, once. Every
 * other room sees only `Db`, this room's own async interface (sql/types.ts).
 */
import Database from 'better-sqlite3';
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { allMigrations, migrationSql, type Migration } from './migrations/index.js';
import { SqliteSql } from './sql/sqlite.js';
import { startCheckpointer, type Checkpointer, type CheckpointerOptions } from './sql/sqlite-checkpointer.js';
import { describeUrl } from './sql/describe-url.js';
import type { Sql } from './sql/types.js';

/** The store's handle: the async face of either engine (sql/types.ts). */
export type Db = Sql;
/** The same (the name the repositories moved to while the engines were being split). */
export type AnyDb = Sql;
export { DatabaseUnavailableError } from './sql/types.js';

/** The SQLite store at `path` (':memory:' for a test), migrated. Synchronous: it is a local file. */
export function openDatabase(
  path: string,
  migrations: Migration[] = allMigrations,
  o: {
    backgroundCheckpoints?: boolean;
    walRestartPages?: number;
    /** For tests: the checkpointer's bound on a pause, and a RESTART that holds the write lock this long (sqlite-checkpointer.ts). */
    checkpointTest?: { boundMs?: number; holdMs?: number };
  } = {},
): Db {
  const onDisk = path !== ':memory:' && path !== '';
  if (onDisk) {
    // The audit trail and event payloads are for this user only: a folder we create is 0700,
    // and the database files are 0600 (created so, and tightened if they exist).
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    if (!existsSync(path)) closeSync(openSync(path, 'a', 0o600));
  }
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  if (onDisk) {
    for (const f of [path, `${path}-wal`, `${path}-shm`]) {
      if (existsSync(f)) chmodSync(f, 0o600);
    }
  }
  // NORMAL in WAL mode: a committed event survives a crash or kill of the process (tested with
  // SIGKILL); a power loss or OS crash may lose the last commits before a checkpoint. FULL
  // closes that gap but syncs on every commit, and better-sqlite3 blocks the event loop while
  // it does: measured here, intake fell from ~4,500 to ~870 events/s and p99 at 1,000/s rose
  // from ~5 ms to ~460 ms. Run the data volume on storage with a battery-backed or
  // power-loss-protected cache if that gap matters.
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  // better-sqlite3 is synchronous: a lock held elsewhere blocks the event loop this long at most.
  db.pragma('busy_timeout = 2000');
  // A statement that writes several rows inside a transaction (insertEvents, insertEventRows,
  // the outbox's UPDATE … IN lists) keeps a statement journal, to undo its own rows if it fails
  // half-way. In the default temp store that journal is a temporary file held in memory until
  // it passes 64 KiB, and measured (8-row INSERTs of events) it cost ~5 µs of system time per
  // row, more than the statements it saved; in MEMORY it costs nothing measurable. Temporary
  // tables and sorts also stay in memory: this bot's are small (a chunk of ids, a page of rows).
  db.pragma('temp_store = MEMORY');
  migrateSqlite(db, migrations);
  if (onDisk && o.backgroundCheckpoints) {
    const sql = new SqliteSql(db, path, () => checkpoints.stop());
    const checkpoints = checkpointInBackground(db, path, {
      pause: (work) => sql.pause(work),
      writable: () => writableNow(db),
      restartAtPages: o.walRestartPages,
      ...o.checkpointTest,
    });
    return sql;
  }
  return new SqliteSql(db, onDisk ? path : ':memory:');
}

/**
 * WAL checkpoints (and their syncs) on a worker thread, not inside a commit on the event loop
 * (sql/sqlite-checkpointer.ts). The worker (an isolate: ~7 MiB) is started once writes come in
 * earnest, the WAL file having grown past 1 MiB; until then the connection checkpoints itself
 * as SQLite does by default (every 1,000 pages), and after, only as a backstop at ~40 MB. Once
 * the WAL holds `restartAtPages` (default 4,096 pages, 16 MiB), the writer pauses (`pause`)
 * while the worker makes the WAL start again.
 */
function checkpointInBackground(db: Database.Database, path: string, options: CheckpointerOptions): { stop(): Promise<void> } {
  let checkpointer: Checkpointer | undefined;
  const timer = setInterval(() => {
    if ((statSync(`${path}-wal`, { throwIfNoEntry: false })?.size ?? 0) < 1 << 20) return;
    clearInterval(timer);
    db.pragma('wal_autocheckpoint = 10000');
    checkpointer = startCheckpointer(path, options);
  }, 250);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await checkpointer?.stop();
    },
  };
}

/**
 * True when a write transaction could begin now without waiting for a lock: asked while the
 * writer is paused (no transaction of this connection open), so the writer does not resume
 * into a lock a checkpoint still holds, which better-sqlite3 would wait for synchronously.
 */
function writableNow(db: Database.Database): boolean {
  if (!db.open || db.inTransaction) return true;
  const timeout = db.pragma('busy_timeout', { simple: true }) as number;
  db.pragma('busy_timeout = 0');
  try {
    db.exec('BEGIN IMMEDIATE');
    db.exec('ROLLBACK');
    return true;
  } catch (e) {
    // Only a lock held elsewhere says "not yet"; any other failure is for the write itself to report.
    return !String((e as { code?: unknown }).code).startsWith('SQLITE_BUSY');
  } finally {
    db.pragma(`busy_timeout = ${timeout}`);
  }
}

function migrateSqlite(db: Database.Database, migrations: Migration[]): void {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
  const applied = new Set(db.prepare('SELECT version FROM schema_migrations').pluck().all() as number[]);
  for (const m of inOrder(migrations)) {
    if (applied.has(m.version)) continue;
    db.transaction(() => {
      db.exec(migrationSql(m, 'sqlite'));
      db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(
        m.version,
        m.name,
        new Date().toISOString(),
      );
    })();
  }
}

function inOrder(migrations: Migration[]): Migration[] {
  const seen = new Set<number>();
  const sorted = [...migrations].sort((a, b) => a.version - b.version);
  for (const m of sorted) {
    if (seen.has(m.version)) throw new Error(`two migrations share version ${m.version} (${m.name})`);
    seen.add(m.version);
  }
  return sorted;
}

/** A key of pg_advisory_xact_lock: replicas starting together migrate one after the other. */
const MIGRATION_LOCK = 7_264_201;

/**
 * The PostgreSQL store at `url`, migrated (under a lock, so replicas starting together take turns).
 * `migrate: false` only connects (it fails if it cannot) and changes nothing: for `doctor`, which
 * may run from a new image before a rolling upgrade, while older replicas still use the database.
 */
export async function openPostgres(
  url: string,
  o: { onError?: (err: Error) => void; max?: number; migrations?: Migration[]; migrate?: boolean } = {},
): Promise<AnyDb> {
  // pg is loaded only when PostgreSQL is configured: a SQLite bot never holds it in memory.
  const { PostgresSql } = await import('./sql/postgres.js');
  const db = new PostgresSql({ url, onError: o.onError, max: o.max });
  try {
    if (o.migrate === false) {
      await db.value('SELECT 1');
      return db;
    }
    await db.tx(async () => {
      await db.exec(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`);
      await db.exec(
        'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)',
      );
      const applied = new Set(await db.column<number>('SELECT version FROM schema_migrations'));
      for (const m of inOrder(o.migrations ?? allMigrations)) {
        if (applied.has(m.version)) continue;
        await db.exec(migrationSql(m, 'postgres'));
        await db.run('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)', [
          m.version,
          m.name,
          new Date().toISOString(),
        ]);
      }
    });
  } catch (e) {
    await db.close().catch(() => undefined);
    throw e;
  }
  return db;
}

/** The store configured: PostgreSQL when `url` is set, else SQLite at `path`. */
export async function openStoreDatabase(o: { url?: string; path: string; onError?: (err: Error) => void }): Promise<AnyDb> {
  return o.url ? openPostgres(o.url, { onError: o.onError }) : openDatabase(o.path, allMigrations, { backgroundCheckpoints: true });
}

/**
 * What `doctor` reports: the engine, where, and the schema version applied against the one this
 * build expects: `missing`, versions this build would apply; `unknown`, versions applied that this
 * build does not know (a newer version migrated the database).
 */
export async function schemaStatus(
  db: AnyDb,
): Promise<{ engine: AnyDb['engine']; where: string; applied: number; expected: number; missing: number[]; unknown: number[] }> {
  const expected = allMigrations.map((m) => m.version);
  // A PostgreSQL database never migrated has no schema_migrations yet (doctor does not create it).
  const migrated = db.engine === 'sqlite' || (await db.value<string>("SELECT to_regclass('schema_migrations')::text")) !== undefined;
  const applied = new Set(migrated ? await db.column<number>('SELECT version FROM schema_migrations') : []);
  return {
    engine: db.engine,
    where: db.where,
    applied: Math.max(0, ...applied),
    expected: Math.max(...expected),
    missing: expected.filter((v) => !applied.has(v)),
    unknown: [...applied].filter((v) => !expected.includes(v)).sort((a, b) => a - b),
  };
}

export { describeUrl };
