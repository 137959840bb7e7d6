/**
 * The schema the migrations build, on each engine, against a golden file
 * (test/fixtures/store/schema-<engine>.json): the versions applied with their names, and every
 * table, column, constraint and index as the engine itself describes them (SQLite's
 * sqlite_master, PostgreSQL's catalogs). The files were first written by the migrations as they
 * stood when each engine had its own list, so a database migrated by those lists has exactly
 * this version and shape. A new migration changes the files: `UPDATE_GOLDEN=1` rewrites them,
 * and their diff shows what it adds on each engine.
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { AnyDb } from '../../src/store/index.js';
import { ENGINES, openTestDb } from '../support/databases.js';
import { expectGolden } from '../support/golden.js';

interface Applied {
  version: number;
  name: string;
}

/** SQLite: every object of sqlite_master, its CREATE statement as stored, line by line. */
async function sqliteSchema(db: AnyDb): Promise<unknown> {
  const rows = await db.all<{ type: string; name: string; tbl: string; sql: string | null }>(
    'SELECT type, name, tbl_name AS tbl, sql FROM sqlite_master ORDER BY type, name',
  );
  return rows.map((r) => ({ type: r.type, name: r.name, table: r.tbl, sql: r.sql?.split('\n') ?? null }));
}

/** PostgreSQL: each table's columns, constraints and indexes, as the catalogs define them. */
async function postgresSchema(db: AnyDb): Promise<unknown> {
  const columns = await db.all<{ tbl: string; line: string }>(
    `SELECT table_name AS tbl,
            column_name || ' ' || data_type
              || CASE WHEN is_nullable = 'NO' THEN ' NOT NULL' ELSE '' END
              || COALESCE(' DEFAULT ' || column_default, '')
              || CASE WHEN is_identity = 'YES' THEN ' GENERATED ' || identity_generation || ' AS IDENTITY' ELSE '' END AS line
       FROM information_schema.columns WHERE table_schema = 'public' ORDER BY table_name, ordinal_position`,
  );
  const constraints = await db.all<{ tbl: string; line: string }>(
    `SELECT conrelid::regclass::text AS tbl, conname || ': ' || pg_get_constraintdef(oid) AS line
       FROM pg_constraint WHERE connamespace = 'public'::regnamespace ORDER BY 1, conname`,
  );
  const indexes = await db.all<{ tbl: string; line: string }>(
    "SELECT tablename AS tbl, indexdef AS line FROM pg_indexes WHERE schemaname = 'public' ORDER BY tablename, indexname",
  );
  const sequences = await db.column<string>(
    "SELECT sequence_name || ' ' || data_type FROM information_schema.sequences WHERE sequence_schema = 'public' ORDER BY sequence_name",
  );
  const tables: Record<string, { columns: string[]; constraints: string[]; indexes: string[] }> = {};
  const table = (name: string) => (tables[name] ??= { columns: [], constraints: [], indexes: [] });
  for (const c of columns) table(c.tbl).columns.push(c.line);
  for (const c of constraints) table(c.tbl).constraints.push(c.line);
  for (const i of indexes) table(i.tbl).indexes.push(i.line);
  return { tables, sequences };
}

describe.each(ENGINES)('the schema the migrations build on %s', (engine) => {
  let db: AnyDb;
  beforeAll(async () => {
    db = await openTestDb(engine);
  });
  afterAll(async () => {
    await db.close();
  });

  it('is the one the shipped migrations built: the same versions, names, tables, columns and indexes', async () => {
    const migrations = await db.all<Applied>('SELECT version, name FROM schema_migrations ORDER BY version');
    const objects = engine === 'sqlite' ? await sqliteSchema(db) : await postgresSchema(db);
    expectGolden(`store/schema-${engine}`, { migrations, objects });
  });
});
