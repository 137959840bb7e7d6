/**
 * Reads a callgrind dump (instructions-per-event.ts): the instructions each function executed
 * itself (not those of the functions it called), with the functions V8 compiled named from the
 * process's `--perf-basic-prof` map, and a rough kind for each.
 */
import { existsSync, readFileSync } from 'node:fs';

/** A function's self cost (Ir, the first event column) by name, from callgrind's text format. */
export function costByFunction(text: string, jsName: (address: number) => string | undefined): Map<string, number> {
  const names = new Map<string, string>();
  const costs = new Map<string, number>();
  let fn: string | undefined;
  let skipCallCost = false;
  for (const line of text.split('\n')) {
    if (skipCallCost) {
      // The line after `calls=` is the call's inclusive cost: the callee's, not this function's.
      skipCallCost = false;
      continue;
    }
    if (line.startsWith('fn=') || line.startsWith('cfn=')) {
      // Compressed names: `(id) name` the first time, `(id)` after.
      const m = /^c?fn=\((\d+)\)(?: (.*))?$/.exec(line);
      const name = m ? (m[2] !== undefined ? (names.set(m[1], m[2]), m[2]) : names.get(m[1])) : line.slice(line.indexOf('=') + 1);
      if (line.startsWith('fn=')) fn = nameOf(name ?? '?', jsName);
      continue;
    }
    if (line.startsWith('calls=')) {
      skipCallCost = true;
      continue;
    }
    const c = line.charCodeAt(0);
    // A cost line: a position (a number, or +n / -n / * relative to the last), then the costs.
    if (fn !== undefined && ((c >= 48 && c <= 57) || c === 43 || c === 45 || c === 42)) {
      const ir = Number(line.split(' ')[1]);
      if (Number.isFinite(ir)) costs.set(fn, (costs.get(fn) ?? 0) + ir);
    }
  }
  return costs;
}

/** V8's code has no symbols: an address callgrind names `0x…` is looked up in the perf map. */
function nameOf(name: string, jsName: (address: number) => string | undefined): string {
  if (!/^0x[0-9a-f]+$/.test(name)) return name;
  const js = jsName(Number.parseInt(name.slice(2), 16));
  return js === undefined ? name : `js ${js}`;
}

/** The code V8 compiled, by address (`/tmp/perf-<pid>.map`: `start size name` in hex). */
export function jsFunctionNames(mapFile: string): (address: number) => string | undefined {
  if (!existsSync(mapFile)) return () => undefined;
  const rows = readFileSync(mapFile, 'utf8')
    .split('\n')
    .map((l) => /^([0-9a-f]+) ([0-9a-f]+) (.*)$/.exec(l))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ start: Number.parseInt(m[1], 16), size: Number.parseInt(m[2], 16), name: m[3] }))
    .sort((a, b) => a.start - b.start);
  return (address) => {
    let lo = 0;
    let hi = rows.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (rows[mid].start <= address) lo = mid + 1;
      else hi = mid - 1;
    }
    const row = rows[hi];
    // (A tier's name marks it: `*` optimized, `^` baseline, `~` interpreted; it is dropped to add the tiers up.)
    return row && address < row.start + row.size ? row.name.replace(/^(?:\w+:)?[*^~+]?/, '') : undefined;
  };
}

/** A function's kind, to add the costs up by. */
export function kindOf(fn: string): string {
  if (fn.startsWith('js ')) return 'javascript';
  if (/sodium|fe25519|ge25519|sc25519|SHA512|crypto_sign/.test(fn)) return 'ed25519 (libsodium)';
  if (/sqlite3|better_sqlite3|Statement::|Binder::|Data::/.test(fn)) return 'sqlite';
  if (/v8::internal::(compiler|maglev|baseline)::|Turbofan|Maglev/.test(fn)) return 'v8 compiler';
  if (/Heap|Scaveng|Marking|Mark[A-Z]|Sweep|Evacuat|heap::|GC|RememberedSet|Compactor/.test(fn)) return 'v8 garbage collector';
  if (fn.startsWith('Builtins_')) return 'v8 builtins';
  if (fn.startsWith('0x')) return 'unnamed generated code';
  if (/llhttp|http_parser|node::http/i.test(fn)) return 'http parser';
  if (/^(__|_int_|malloc|free|mem|str)/.test(fn)) return 'libc';
  if (fn.includes('v8::')) return 'v8 runtime';
  return 'other native';
}
