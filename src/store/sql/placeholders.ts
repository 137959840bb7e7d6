/**
 * `?` and `@name` placeholders (the repositories' one dialect) to PostgreSQL's `$1, $2…`,
 * skipping quoted strings (E'…' with backslash escapes), quoted identifiers, dollar-quoted bodies
 * and comments (line and block). A name used twice is one parameter.
 */
export interface Translated {
  text: string;
  /** For named parameters: the names in `$n` order; undefined when the SQL uses `?`. */
  names?: string[];
  /** How many `?` it has. */
  count: number;
  /** For named parameters: the index in `names` of each placeholder written, in order. */
  occurrences?: number[];
}

/**
 * `mark(n)` writes the n-th parameter (1-based): `$n` for PostgreSQL; SQLite's bindings by
 * position take `?` for each occurrence (see `occurrences`).
 */
export function toNumbered(sql: string, mark: (n: number) => string = (n) => `$${n}`): Translated {
  let out = '';
  let count = 0;
  const names: string[] = [];
  const occurrences: number[] = [];
  let i = 0;
  while (i < sql.length) {
    const c = sql[i];
    const dollar = c === '$' && !/[\w$]/.test(sql[i - 1] ?? '') ? /^\$(?:[A-Za-z_][A-Za-z0-9_]*)?\$/.exec(sql.slice(i)) : null;
    if (c === "'" || c === '"') {
      // E'…' strings take backslash escapes (E'it\'s'): the E must start a word of its own.
      const escapes = c === "'" && /[Ee]/.test(sql[i - 1] ?? '') && !/[\w$]/.test(sql[i - 2] ?? '');
      const end = closing(sql, i, c, escapes);
      out += sql.slice(i, end);
      i = end;
    } else if (dollar) {
      // A dollar-quoted body ($$…$$, $tag$…$tag$) is text, up to the same tag.
      const close = sql.indexOf(dollar[0], i + dollar[0].length);
      const end = close === -1 ? sql.length : close + dollar[0].length;
      out += sql.slice(i, end);
      i = end;
    } else if (c === '/' && sql[i + 1] === '*') {
      // Block comments nest in PostgreSQL.
      let depth = 0;
      let j = i;
      while (j < sql.length) {
        if (sql[j] === '/' && sql[j + 1] === '*') {
          depth++;
          j += 2;
        } else if (sql[j] === '*' && sql[j + 1] === '/') {
          j += 2;
          if (--depth === 0) break;
        } else j++;
      }
      out += sql.slice(i, j);
      i = j;
    } else if (c === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      const stop = end === -1 ? sql.length : end;
      out += sql.slice(i, stop);
      i = stop;
    } else if (c === '?') {
      out += mark(++count);
      i++;
    } else if (c === '@' && /[A-Za-z_]/.test(sql[i + 1] ?? '')) {
      let j = i + 1;
      while (j < sql.length && /\w/.test(sql[j])) j++;
      const name = sql.slice(i + 1, j);
      let n = names.indexOf(name);
      if (n === -1) n = names.push(name) - 1;
      occurrences.push(n);
      out += mark(n + 1);
      i = j;
    } else {
      out += c;
      i++;
    }
  }
  if (count && names.length) throw new Error('SQL mixes ? and @name placeholders');
  return { text: out, names: names.length ? names : undefined, count, occurrences: names.length ? occurrences : undefined };
}

function closing(sql: string, start: number, quote: string, escapes = false): number {
  let i = start + 1;
  while (i < sql.length) {
    if (escapes && sql[i] === '\\') i += 2;
    else if (sql[i] === quote) {
      if (sql[i + 1] === quote) i += 2;
      else return i + 1;
    } else i++;
  }
  return sql.length;
}

/** The values in `$n` order. */
export function valuesFor(t: Translated, params: readonly unknown[] | Readonly<Record<string, unknown>> | undefined): unknown[] {
  if (!params) return [];
  if (Array.isArray(params)) return (params as unknown[]).map(normalise);
  if (!t.names) throw new Error('named parameters given to SQL with ? placeholders');
  const p = params as Record<string, unknown>;
  return t.names.map((n) => {
    if (!(n in p)) throw new Error(`missing named parameter @${n}`);
    return normalise(p[n]);
  });
}

/** undefined is NULL, as better-sqlite3 would refuse it: one meaning on both engines. */
function normalise(v: unknown): unknown {
  return v === undefined ? null : v;
}
