/**
 * The SQLite engine: one file (WAL) in one process, through better-sqlite3, which is
 * synchronous. Queries run at once; a transaction holds the connection while its async
 * callback runs, so queries from elsewhere wait for it (they would otherwise join it).
 */
import Database from 'better-sqlite3';
import { AsyncLocalStorage } from 'node:async_hooks';
import { live, takeTurn, type Level } from './nesting.js';
import { toNumbered } from './placeholders.js';
import { DatabaseUnavailableError, type Params, type RunResult, type Sql, type SyncQueries } from './types.js';

/** SQLite failures of the database itself, not of a statement. */
const UNAVAILABLE = [
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
  'SQLITE_FULL',
  'SQLITE_IOERR',
  'SQLITE_NOMEM',
  'SQLITE_CORRUPT',
  'SQLITE_READONLY',
  'SQLITE_CANTOPEN',
];

function wrap(error: unknown): unknown {
  const code = error && typeof error === 'object' ? (error as { code?: unknown }).code : undefined;
  if (typeof code === 'string' && UNAVAILABLE.some((c) => code === c || code.startsWith(`${c}_`))) {
    return Object.assign(new DatabaseUnavailableError(`the database is unavailable (${code})`, error), { code });
  }
  if (error instanceof TypeError && /database connection is not open/.test(error.message)) {
    return new DatabaseUnavailableError('the database is closed', error);
  }
  return error;
}

type Stmt = Database.Statement<unknown[]>;

/**
 * A prepared statement, its `@name` placeholders written as `?` and bound by position: for
 * named parameters better-sqlite3 looks every name up in the object (a string made and a
 * property read per parameter, ~6% of the store's CPU per event), and the object was copied
 * first. `names` gives the parameter of each `?`, in order (a name used twice binds twice).
 */
interface Prepared {
  st: Stmt;
  names?: string[];
}

/** A transaction, or a savepoint in one: nested tx() calls at one level take turns (`turn`). */
export class SqliteSql implements Sql {
  readonly engine = 'sqlite' as const;
  private readonly statements = new Map<string, Prepared>();
  private readonly controls = new Map<string, Stmt>();
  /** The transaction (or savepoint) of this async call chain; `root.done` once it ended (work it started may outlive it). */
  private readonly als = new AsyncLocalStorage<Level>();
  /** Settles when the transaction holding the connection ends. */
  private held: Promise<void> | undefined;

  constructor(
    readonly raw: Database.Database,
    readonly where: string,
    /** Runs before the connection closes (the background checkpointer's stop). */
    private readonly beforeClose?: () => Promise<void>,
  ) {}

  get open(): boolean {
    return this.raw.open;
  }

  get inTransaction(): boolean {
    return this.current() !== undefined;
  }

  /** The transaction this async call chain is in, if it has not ended. */
  private current(): Level | undefined {
    return live(this.als.getStore());
  }

  private statement(sql: string): Prepared {
    let p = this.statements.get(sql);
    if (!p) {
      const t = sql.includes('@') ? toNumbered(sql, () => '?') : undefined;
      try {
        p = t?.names
          ? { st: this.raw.prepare<unknown[]>(t.text), names: t.occurrences!.map((i) => t.names![i]) }
          : { st: this.raw.prepare<unknown[]>(sql) };
      } catch (e) {
        throw wrap(e);
      }
      this.statements.set(sql, p);
    }
    return p;
  }

  /** BEGIN, COMMIT, SAVEPOINT, RELEASE: prepared once and reused (exec would parse them on every transaction). */
  private control(sql: string): void {
    let st = this.controls.get(sql);
    if (!st) {
      st = this.raw.prepare<unknown[]>(sql);
      this.controls.set(sql, st);
    }
    st.run();
  }

  /** Another async chain's transaction holds the connection (wait for `held`, then check again before the query). */
  private busy(): boolean {
    return this.held !== undefined && this.current() === undefined;
  }

  private call<T>(sql: string, params: Params | undefined, f: (st: Stmt, args: unknown[]) => T): T {
    const { st, names } = this.statement(sql);
    const args =
      params === undefined
        ? []
        : Array.isArray(params)
          ? (params as unknown[]).map(nullify)
          : names
            ? byName(names, params as Record<string, unknown>)
            : [namedArgs(params as Record<string, unknown>)];
    try {
      return f(st, args);
    } catch (e) {
      throw wrap(e);
    }
  }

  async all<T>(sql: string, params?: Params): Promise<T[]> {
    while (this.busy()) await this.held;
    return this.call(sql, params, (st, a) => st.all(...a) as T[]);
  }

  async arrays(sql: string, params?: Params): Promise<unknown[][]> {
    while (this.busy()) await this.held;
    return this.call(sql, params, (st, a) => {
      // The statement is shared with all() of the same text: raw only for this call.
      st.raw(true);
      try {
        return st.all(...a) as unknown[][];
      } finally {
        st.raw(false);
      }
    });
  }

  async get<T>(sql: string, params?: Params): Promise<T | undefined> {
    while (this.busy()) await this.held;
    return this.call(sql, params, (st, a) => st.get(...a) as T | undefined);
  }

  async value<T>(sql: string, params?: Params): Promise<T | undefined> {
    const row = await this.get<Record<string, unknown>>(sql, params);
    if (!row) return undefined;
    for (const k in row) return (row[k] ?? undefined) as T | undefined;
    return undefined;
  }

  async column<T>(sql: string, params?: Params): Promise<T[]> {
    const rows = await this.all<Record<string, unknown>>(sql, params);
    return rows.map((r) => {
      for (const k in r) return r[k] as T;
      return undefined as T;
    });
  }

  async run(sql: string, params?: Params): Promise<RunResult> {
    while (this.busy()) await this.held;
    return this.runNow(sql, params);
  }

  private runNow(sql: string, params?: Params): RunResult {
    return this.call(sql, params, (st, a) => {
      if (st.reader) {
        const rows = st.all(...a) as Array<Record<string, unknown>>;
        return { changes: rows.length, rows };
      }
      return { changes: st.run(...a).changes, rows: [] };
    });
  }

  /** The queries of txNow (one object, made once). */
  private readonly now: SyncQueries = {
    run: (sql, params) => this.runNow(sql, params),
    insert: (sql, params) =>
      this.call(sql, params, (st, a) => {
        const r = st.run(...a);
        return r.changes > 0 ? Number(r.lastInsertRowid) : undefined;
      }),
  };

  async exec(sql: string): Promise<void> {
    while (this.busy()) await this.held;
    try {
      this.raw.exec(sql);
    } catch (e) {
      throw wrap(e);
    }
  }

  async tx<T>(fn: () => Promise<T>): Promise<T> {
    const inside = this.current();
    if (inside) {
      // Nested tx() calls of one level (Promise.all of two) take turns: each its own savepoint.
      return takeTurn(inside, async () => {
        const level: Level = { depth: inside.depth + 1, turn: Promise.resolve(), root: inside.root };
        const name = `sp${level.depth}`;
        this.control(`SAVEPOINT ${name}`);
        try {
          const r = await this.als.run(level, fn);
          this.control(`RELEASE ${name}`);
          return r;
        } catch (e) {
          if (this.raw.inTransaction) this.raw.exec(`ROLLBACK TO ${name}; RELEASE ${name}`);
          throw e;
        }
      });
    }
    return this.holding(async () => {
      const store: Level = { depth: 0, turn: Promise.resolve(), root: { done: false } };
      try {
        try {
          this.control('BEGIN IMMEDIATE');
        } catch (e) {
          throw wrap(e);
        }
        return await this.als.run(store, async () => {
          try {
            const r = await fn();
            this.control('COMMIT');
            return r;
          } catch (e) {
            if (this.raw.inTransaction) this.raw.exec('ROLLBACK');
            throw wrap(e);
          }
        });
      } finally {
        // Work started inside that runs later must wait like any other chain, not join the next transaction.
        store.root.done = true;
      }
    });
  }

  /**
   * A transaction run at once (Sql.txNow): nothing else can run on this thread while it does, so
   * holding the connection needs no promise. Not while another transaction holds it (`held`:
   * one of tx(), or the checkpointer's pause) or this chain is inside one: those answer undefined.
   */
  txNow<T>(fn: (q: SyncQueries) => T): { value: T } | undefined {
    if (this.held || this.current()) return undefined;
    try {
      this.control('BEGIN IMMEDIATE');
    } catch (e) {
      throw wrap(e);
    }
    try {
      const value = fn(this.now);
      this.control('COMMIT');
      return { value };
    } catch (e) {
      if (this.raw.inTransaction) this.raw.exec('ROLLBACK');
      throw wrap(e);
    }
  }

  /**
   * Runs `work` with the connection to itself: once the transaction holding it has ended, and
   * before any other begins or any query outside one runs (they wait, as for a transaction).
   * The WAL checkpointer's RESTART runs so (sqlite-checkpointer.ts), on its own connection.
   */
  pause(work: () => Promise<void>): Promise<void> {
    return this.holding(work);
  }

  /** Holds the connection while `fn` runs (a transaction, a pause): other chains wait for `held`. */
  private async holding<T>(fn: () => Promise<T>): Promise<T> {
    // The check and the taking are in one synchronous step: two waiters cannot both take it.
    while (this.held) await this.held;
    let release!: () => void;
    this.held = new Promise<void>((r) => (release = r));
    try {
      return await fn();
    } finally {
      this.held = undefined;
      release();
    }
  }

  async ping(): Promise<boolean> {
    if (!this.raw.open) return false;
    try {
      this.raw.prepare('SELECT 1').get();
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    if (this.held) await this.held;
    await this.beforeClose?.();
    if (this.raw.open) this.raw.close();
  }
}

function nullify(v: unknown): unknown {
  return v === undefined ? null : typeof v === 'boolean' ? (v ? 1 : 0) : v;
}

/** The value of each `?` of a statement written with `@name` placeholders, in order. */
function byName(names: readonly string[], p: Record<string, unknown>): unknown[] {
  const out = new Array<unknown>(names.length);
  for (let i = 0; i < names.length; i++) {
    const n = names[i];
    // As better-sqlite3 would: a name the object lacks is an error, not a NULL.
    if (!(n in p)) throw new RangeError(`Missing named parameter "${n}"`);
    out[i] = nullify(p[n]);
  }
  return out;
}

/** Named parameters of a statement that has no `@name` (`:name`, `$name`): as better-sqlite3 takes them. */
function namedArgs(p: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k in p) out[k] = nullify(p[k]);
  return out;
}
