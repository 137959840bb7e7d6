/**
 * Golden files: a value is compared with `test/fixtures/<path>.json`, and `UPDATE_GOLDEN=1`
 * writes it instead. Review a rewritten file's diff like code. A missing file fails the test
 * (it is written, to be reviewed and committed): a golden file nobody committed checks nothing.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { expect } from 'vitest';

const FIXTURES = join(import.meta.dirname, '../fixtures');

export function expectGolden(path: string, value: unknown): void {
  const file = join(FIXTURES, `${path}.json`);
  const text = `${JSON.stringify(value, null, 2)}\n`;
  const missing = !existsSync(file);
  if (process.env.UPDATE_GOLDEN || missing) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
  if (missing && !process.env.UPDATE_GOLDEN) {
    expect.fail(`no golden file test/fixtures/${path}.json: it was written now; review it, commit it, and run again`);
  }
  expect(text, `golden file test/fixtures/${path}.json (UPDATE_GOLDEN=1 rewrites it)`).toBe(readFileSync(file, 'utf8'));
}

/**
 * Replaces what differs from run to run (ids, keys, addresses, button ids, times) with stable
 * placeholders numbered in order of appearance, so that a golden file holds the shape and the
 * words of a real answer and nothing random.
 */
export function scrubVolatile(value: unknown): unknown {
  const seen = new Map<string, string>();
  const counters = new Map<string, number>();
  const stable = (kind: string, raw: string) => {
    const key = `${kind}:${raw}`;
    let name = seen.get(key);
    if (!name) {
      const n = (counters.get(kind) ?? 0) + 1;
      counters.set(kind, n);
      name = `<${kind}${n}>`;
      seen.set(key, name);
    }
    return name;
  };
  const rules: Array<[RegExp, string]> = [
    [/\bb_[A-Za-z0-9_-]{6,}/g, 'button'],
    [/\brgb:[A-Za-z0-9~!$%_-]+(?:-[A-Za-z0-9~!$%_-]+)*/g, 'asset'],
    [/\b(?:bcrt|tb|bc)1[a-z0-9]{20,}/g, 'address'],
    [/\b(?:lnbcrt|lntb|lnbc)[a-z0-9]{20,}/gi, 'invoice'],
    [/\b[0-9a-f]{66}\b/g, 'pubkey'],
    [/\b[0-9a-f]{64}\b/g, 'hash'],
    [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g, 'uuid'],
    [/\b[0-9a-f]{6,8}…[0-9a-f]{4,8}\b/g, 'short'],
    [/\bnode-[A-Za-z0-9]{6,}\b/g, 'node'],
    [/\buser-[0-9a-f]{8}\b/g, 'user'],
    [/\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?Z?/g, 'time'],
    [/\b\d{2}:\d{2}(?::\d{2})?\b/g, 'clock'],
    [/https?:\/\/127\.0\.0\.1:\d+/g, 'url'],
  ];
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return rules.reduce((s, [re, kind]) => s.replace(re, (m) => stable(kind, m)), v);
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(value);
}
