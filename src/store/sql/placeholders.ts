/**
 * `?` and `@name` placeholders (the repositories' one dialect) to PostgreSQL's `$1, $2…`,
 * skipping quoted strings, quoted identifiers and comments. A name used twice is one parameter.
 */
export interface Translated {
  text: string;
  /** For named parameters: the names in `$n` order; undefined when the SQL uses `?`. */
  names?: string[];
  /** How many `?` it has. */
  count: number;
}

export function toNumbered(sql: string): Translated {
  let out = '';
  let count = 0;
  const names: string[] = [];
  let i = 0;
  while (i < sql.length) {
    const c = sql[i];
    if (c === "'" || c === '"') {
      const end = closing(sql, i, c);
      out += sql.slice(i, end);
      i = end;
    } else if (c === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      const stop = end === -1 ? sql.length : end;
      out += sql.slice(i, stop);
      i = stop;
    } else if (c === '?') {
      out += `$${++count}`;
      i++;
    } else if (c === '@' && /[A-Za-z_]/.test(sql[i + 1] ?? '')) {
      let j = i + 1;
      while (j < sql.length && /\w/.test(sql[j])) j++;
      const name = sql.slice(i + 1, j);
      let n = names.indexOf(name);
      if (n === -1) n = names.push(name) - 1;
      out += `$${n + 1}`;
      i = j;
    } else {
      out += c;
      i++;
    }
  }
  if (count && names.length) throw new Error('SQL mixes ? and @name placeholders');
  return { text: out, names: names.length ? names : undefined, count };
}

function closing(sql: string, start: number, quote: string): number {
  let i = start + 1;
  while (i < sql.length) {
    if (sql[i] === quote) {
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
