/**
 * Every document the code, the tests and the docs cite by name is in the project: a `*.md` named
 * in a comment or a README resolves to a file of the checkout (by its path, or for a bare name,
 * by a file of that name in the tree).
 */
import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const SKIP = new Set(['node_modules', '.git', 'dist', 'data', 'coverage', 'fixtures']);

function files(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    if (SKIP.has(name)) return [];
    const rel = dir ? `${dir}/${name}` : name;
    return statSync(join(root, rel)).isDirectory() ? files(rel) : [rel];
  });
}

const all = files('');
const names = new Set(all.map((f) => basename(f)));
const sources = all.filter((f) => /\.(ts|md|cjs|js|yml|json)$/.test(f) && f !== 'package-lock.json');
// A document's name: letters, digits, dots, dashes and slashes, ending in .md (not a URL).
const CITED = /(?<![\w/.:-])((?:[\w.-]+\/)*[\w-]+\.md)\b/g;

describe('the documents the project cites', () => {
  it('all exist in the project', () => {
    const missing: string[] = [];
    for (const f of sources) {
      for (const m of readFileSync(join(root, f), 'utf8').matchAll(CITED)) {
        const cited = m[1];
        if (cited.startsWith('../') || cited.includes('://')) continue;
        const found = cited.includes('/') ? existsSync(join(root, cited)) || existsSync(join(root, f, '..', cited)) : names.has(cited);
        if (!found) missing.push(`${f}: ${cited}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('include the architecture document and the service references', () => {
    for (const doc of ['docs/ARCHITECTURE.md', 'docs/reference/service-interface.md', 'docs/reference/hosting-service.md']) {
      expect(existsSync(join(root, doc)), doc).toBe(true);
    }
  });
});
