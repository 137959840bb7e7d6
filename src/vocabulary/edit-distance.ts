/** Levenshtein distance between two strings (by code point), for "did you mean". */
export function editDistance(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  if (!x.length) return y.length;
  if (!y.length) return x.length;
  let prev = Array.from({ length: y.length + 1 }, (_, i) => i);
  for (let i = 1; i <= x.length; i++) {
    const cur = [i];
    for (let j = 1; j <= y.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x[i - 1] === y[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[y.length];
}

/** The candidates nearest to `text`, best first (at most `max`, within `maxDistance`). */
export function closestOf(text: string, candidates: string[], opts: { max?: number; maxDistance?: number } = {}): string[] {
  const t = text.toLowerCase();
  const scored = candidates.map((c) => {
    const lc = c.toLowerCase();
    let d = editDistance(t, lc);
    if (t && (lc.startsWith(t) || t.startsWith(lc))) d = Math.min(d, 1);
    return { c, d };
  });
  scored.sort((p, q) => p.d - q.d || p.c.localeCompare(q.c));
  const maxDistance = opts.maxDistance ?? Infinity;
  return scored
    .filter((s) => s.d <= maxDistance)
    .slice(0, opts.max ?? 3)
    .map((s) => s.c);
}
