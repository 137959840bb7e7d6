/**
 * The PostgreSQL engine (DATABASE_URL): a pool of connections shared by one replica; several
 * replicas share the database. A transaction takes one connection from the pool for its async
 * call chain; every query outside a transaction takes any free connection.
 */
import pg from 'pg';
import { AsyncLocalStorage } from 'node:async_hooks';
import { toNumbered, valuesFor, type Translated } from './placeholders.js';
import { live, takeTurn, type Level } from './nesting.js';
import { DatabaseUnavailableError, type Params, type RunResult, type Sql } from './types.js';

/** bigint (ms timestamps, COUNT) and numeric (SUM) as numbers: every value here fits in 2^53. */
const types = {
  getTypeParser(oid: number, format?: string): (v: string) => unknown {
    if (oid === 20 || oid === 1700) return (v: string) => (v === null ? null : Number(v));
    return pg.types.getTypeParser(oid, format as 'text') as (v: string) => unknown;
  },
};

/** SQLSTATE classes of a lost or refused connection, not of a statement. */
const UNAVAILABLE_CLASSES = ['08', '53', '57', '58'];
/** Socket errors: the server cannot be reached or the connection broke. */
const UNAVAILABLE_SOCKET_CODES = [
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
];
/** pg's and pg-pool's own words for a dead connection, an ended pool, a connect time-out. */
const UNAVAILABLE_MESSAGES =
  /Connection terminated|Cannot use a pool after calling end|timeout exceeded when trying to connect|Client has encountered a connection error and is not queryable|Query read timeout/;

/**
 * DatabaseUnavailableError for a failure of the database itself; anything else (a statement's
 * SQLSTATE, Node's own ERR_… for a bad parameter) is the caller's error and stays as it is.
 */
function wrap(error: unknown): unknown {
  if (error instanceof DatabaseUnavailableError) return error;
  const code = error && typeof error === 'object' ? (error as { code?: unknown }).code : undefined;
  const message = error instanceof Error ? error.message : String(error);
  const sqlstate = typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
  const unavailable = sqlstate
    ? UNAVAILABLE_CLASSES.includes(sqlstate.slice(0, 2))
    : typeof code === 'string'
      ? UNAVAILABLE_SOCKET_CODES.includes(code)
      : UNAVAILABLE_MESSAGES.test(message);
  if (!unavailable) return error;
  return Object.assign(new DatabaseUnavailableError(`the database is unavailable (${typeof code === 'string' ? code : message})`, error), {
    code,
  });
}

import { describeUrl } from './describe-url.js';
export { describeUrl };

export interface PostgresOptions {
  url: string;
  /** Connections in this replica's pool. Default 10. */
  max?: number;
  /** Told when an idle connection fails (the pool replaces it). */
  onError?: (err: Error) => void;
  /** Time to wait for a free connection or a new one. Default 5 s. */
  connectTimeoutMs?: number;
}

/** A transaction, or a savepoint in one: nested tx() calls at one level take turns (`turn`). */
interface PgLevel extends Level {
  client: pg.PoolClient;
}

export class PostgresSql implements Sql {
  readonly engine = 'postgres' as const;
  readonly where: string;
  private readonly pool: pg.Pool;
  /** ping()'s own connection: a health check must not queue behind busy queries for a pool connection. */
  private readonly pingPool: pg.Pool;
  /** The transaction (or savepoint) of this async call chain; `root.done` once it ended (work it started may outlive it). */
  private readonly als = new AsyncLocalStorage<PgLevel>();
  private readonly texts = new Map<string, Translated>();
  private closed = false;

  constructor(o: PostgresOptions) {
    this.where = describeUrl(o.url);
    this.pool = new pg.Pool({
      connectionString: o.url,
      max: o.max ?? 10,
      connectionTimeoutMillis: o.connectTimeoutMs ?? 5000,
      idleTimeoutMillis: 30_000,
      // A query that waits on a lock or a dead server does not wait for ever.
      query_timeout: 30_000,
      types,
      application_name: 'rln-chatops',
    });
    // An idle connection that fails (server restarted) is dropped by the pool; without a
    // listener the error would end the process.
    this.pool.on('error', (err) => o.onError?.(err));
    this.pingPool = new pg.Pool({
      connectionString: o.url,
      max: 1,
      connectionTimeoutMillis: 1500,
      idleTimeoutMillis: 30_000,
      query_timeout: 1500,
      application_name: 'rln-chatops ping',
    });
    this.pingPool.on('error', (err) => o.onError?.(err));
  }

  get open(): boolean {
    return !this.closed;
  }

  get inTransaction(): boolean {
    return this.current() !== undefined;
  }

  /** The transaction this async call chain is in, if it has not ended. */
  private current(): PgLevel | undefined {
    return live(this.als.getStore());
  }

  private translate(sql: string): Translated {
    let t = this.texts.get(sql);
    if (!t) {
      t = toNumbered(sql);
      this.texts.set(sql, t);
    }
    return t;
  }

  /** A statement in this chain's transaction, if any; `rowMode: 'array'` gives each row as an array (arrays()). */
  private async query(sql: string, params: Params | undefined, rowMode?: 'array'): Promise<pg.QueryResult<Record<string, unknown>>> {
    const t = this.translate(sql);
    const values = valuesFor(t, params);
    const client = this.current()?.client;
    try {
      const config: pg.QueryConfig = { text: t.text, values };
      if (rowMode) (config as pg.QueryArrayConfig).rowMode = rowMode;
      return await (client ?? this.pool).query<Record<string, unknown>>(config);
    } catch (e) {
      throw wrap(e);
    }
  }

  async all<T>(sql: string, params?: Params): Promise<T[]> {
    return (await this.query(sql, params)).rows as T[];
  }

  async arrays(sql: string, params?: Params): Promise<unknown[][]> {
    return (await this.query(sql, params, 'array')).rows as unknown as unknown[][];
  }

  async get<T>(sql: string, params?: Params): Promise<T | undefined> {
    return (await this.query(sql, params)).rows[0] as T | undefined;
  }

  async value<T>(sql: string, params?: Params): Promise<T | undefined> {
    const row = (await this.query(sql, params)).rows[0];
    if (!row) return undefined;
    for (const k in row) return (row[k] ?? undefined) as T | undefined;
    return undefined;
  }

  async column<T>(sql: string, params?: Params): Promise<T[]> {
    return (await this.query(sql, params)).rows.map((r) => {
      for (const k in r) return r[k] as T;
      return undefined as T;
    });
  }

  async run(sql: string, params?: Params): Promise<RunResult> {
    const r = await this.query(sql, params);
    return { changes: r.rowCount ?? 0, rows: r.rows };
  }

  async exec(sql: string): Promise<void> {
    const client = this.current()?.client;
    try {
      await (client ?? this.pool).query(sql);
    } catch (e) {
      throw wrap(e);
    }
  }

  async tx<T>(fn: () => Promise<T>): Promise<T> {
    const inside = this.current();
    if (inside) {
      // Nested tx() calls of one level (Promise.all of two) take turns: each its own savepoint.
      return takeTurn(inside, () => this.savepoint(inside, fn));
    }
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (e) {
      throw wrap(e);
    }
    let broken: unknown;
    // The connection may die between two queries of the transaction (a restart, a terminated
    // backend): pg then emits 'error' on the client, which would end the process without a listener.
    const onError = (err: Error) => (broken = err);
    client.on('error', onError);
    const store: PgLevel = { client, depth: 0, turn: Promise.resolve(), root: { done: false } };
    try {
      await client.query('BEGIN');
      return await this.als.run(store, async () => {
        try {
          const r = await fn();
          // After a failed statement PostgreSQL aborts the transaction, and COMMIT then rolls it
          // back without raising: only its command tag tells.
          if ((await client.query('COMMIT')).command === 'ROLLBACK') {
            throw new Error('the transaction was aborted by an earlier failed statement, so nothing was stored');
          }
          return r;
        } catch (e) {
          await client.query('ROLLBACK').catch((err: unknown) => (broken = err));
          throw e;
        }
      });
    } catch (e) {
      const w = wrap(e);
      if (w instanceof DatabaseUnavailableError) broken = w;
      throw w;
    } finally {
      // Work started inside that runs later (a timer, an un-awaited promise) must not use the
      // connection once it is back in the pool.
      store.root.done = true;
      client.off('error', onError);
      // A connection whose transaction could not be ended is not given back to the pool.
      client.release(broken instanceof Error ? broken : broken ? new Error('connection broken') : undefined);
    }
  }

  /** `fn` in a savepoint one level below `outer`. */
  private async savepoint<T>(outer: PgLevel, fn: () => Promise<T>): Promise<T> {
    const inside: PgLevel = { client: outer.client, depth: outer.depth + 1, turn: Promise.resolve(), root: outer.root };
    const name = `sp${inside.depth}`;
    try {
      await inside.client.query(`SAVEPOINT ${name}`);
    } catch (e) {
      throw wrap(e);
    }
    try {
      const r = await this.als.run(inside, fn);
      await inside.client.query(`RELEASE SAVEPOINT ${name}`);
      return r;
    } catch (e) {
      try {
        await inside.client.query(`ROLLBACK TO SAVEPOINT ${name}`);
        await inside.client.query(`RELEASE SAVEPOINT ${name}`);
      } catch (err) {
        // The transaction cannot go on past this savepoint: say so, rather than let the
        // caller catch `e` and carry on in a transaction that will only roll back.
        throw wrap(
          Object.assign(
            new Error(
              `could not roll back to savepoint ${name} (${err instanceof Error ? err.message : String(err)}) after: ${e instanceof Error ? e.message : String(e)}`,
              { cause: err },
            ),
            { code: (err as { code?: unknown })?.code },
          ),
        );
      }
      throw e;
    }
  }

  async ping(): Promise<boolean> {
    if (this.closed) return false;
    try {
      await this.pingPool.query('SELECT 1');
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([this.pool.end(), this.pingPool.end()]);
  }
}
