/** `WHERE a = ? AND b = ?` for the filters that are set (an empty value is no filter), and their parameters. */
export function whereEquals(filters: ReadonlyArray<readonly [column: string, value: string | undefined]>): {
  sql: string;
  params: string[];
} {
  const set = filters.filter((f): f is readonly [string, string] => Boolean(f[1]));
  return { sql: set.length ? `WHERE ${set.map(([column]) => `${column} = ?`).join(' AND ')}` : '', params: set.map(([, value]) => value) };
}
