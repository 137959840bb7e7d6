/**
 * The one face of a database the repositories see: async queries, transactions that follow the
 * async call chain, and nothing of the engine's own types. Two engines implement it:
 * SQLite (better-sqlite3, one process; sqlite.ts) and PostgreSQL (node-postgres, several
 * replicas may share it; postgres.ts).
 *
 * SQL is written once, in the dialect both engines accept: `?` or `@name` placeholders,
 * `INSERT … ON CONFLICT … DO UPDATE/NOTHING`, `RETURNING`, double-quoted camelCase aliases.
 * Where the engines really differ (DDL, a pragma), a repository asks `sql.engine`.
 */
export type Engine = 'sqlite' | 'postgres';

/** Positional (`?`) or named (`@name`) parameters. */
export type Params = readonly unknown[] | Readonly<Record<string, unknown>>;

export interface RunResult {
  /** Rows changed (inserted, updated, deleted). */
  changes: number;
  /** Rows of a `RETURNING` clause (empty without one). */
  rows: Array<Record<string, unknown>>;
}

export interface Sql {
  readonly engine: Engine;
  /** Every row. */
  all<T = Record<string, unknown>>(sql: string, params?: Params): Promise<T[]>;
  /**
   * Every row as an array of its columns, in the order the query names them: a hot read that
   * makes its own objects (better-sqlite3 builds an object per row ~2× slower than an array).
   */
  arrays(sql: string, params?: Params): Promise<unknown[][]>;
  /** The first row, or undefined. */
  get<T = Record<string, unknown>>(sql: string, params?: Params): Promise<T | undefined>;
  /** The first column of the first row, or undefined (no row, or NULL). */
  value<T = unknown>(sql: string, params?: Params): Promise<T | undefined>;
  /** The first column of every row. */
  column<T = unknown>(sql: string, params?: Params): Promise<T[]>;
  /** A write: rows changed, and what `RETURNING` gave. */
  run(sql: string, params?: Params): Promise<RunResult>;
  /** Statements separated by `;`, no parameters (migrations). */
  exec(sql: string): Promise<void>;
  /**
   * Runs `fn` in one transaction: every query made while it runs (anywhere in its async call
   * chain) is part of it; it commits when `fn` resolves and rolls back when it throws. Called
   * again inside, it opens a savepoint: an inner failure rolls back only the inner part.
   *
   * A statement that fails inside tx() and is caught there, without a nested tx() around it,
   * loses the whole transaction on PostgreSQL (which aborts it: every later statement fails and
   * tx() rejects, nothing stored), while SQLite would carry on. Nest a tx() around a statement
   * that may fail and is meant to be caught.
   */
  tx<T>(fn: () => Promise<T>): Promise<T>;
  /**
   * SQLite only (PostgreSQL's client is async): runs `fn` now, synchronously, in a transaction of
   * its own, with queries that answer at once (`q`). It commits when `fn` returns and rolls back
   * when it throws (the error is thrown on). No promise and no async context is made: for a
   * one-row commit that was about a third of its CPU (the webhook intake's group commit at a
   * steady rate; docs/benchmarks.md, 2026-11-28).
   * Undefined when the connection is not free now: another chain's transaction holds it, or
   * this call chain is inside one. Then use tx(), which waits for it.
   */
  txNow?<T>(fn: (q: SyncQueries) => T): { value: T } | undefined;
  /** True inside a tx() of this database (in this async call chain). */
  readonly inTransaction: boolean;
  /** The database answers now (for /healthz): false when the connection is lost. */
  ping(): Promise<boolean>;
  /** Where it is, with no password: a file path, or postgres://user@host:port/db. */
  readonly where: string;
  readonly open: boolean;
  close(): Promise<void>;
}

/** The queries of a txNow transaction: those of Sql, answered at once. */
export interface SyncQueries {
  run(sql: string, params?: Params): RunResult;
  /**
   * A single-row INSERT without RETURNING: the id (rowid) of the row it made, or undefined when
   * it made none (ON CONFLICT DO NOTHING). Cheaper than RETURNING, which makes a row object.
   */
  insert(sql: string, params?: Params): number | undefined;
}

/**
 * A failure of the database itself (connection lost, locked, full, I/O), not of one statement:
 * callers fail the whole batch and answer "try again later" (a webhook gets 503 + Retry-After).
 */
export class DatabaseUnavailableError extends Error {
  constructor(
    message: string,
    override readonly cause?: unknown,
  ) {
    super(message);
    this.name = 'DatabaseUnavailableError';
  }
}
