/** A new, empty database on a PostgreSQL server, for one test file or benchmark. */
import pg from 'pg';

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
