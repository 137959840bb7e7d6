/**
 * The layout of docs/ARCHITECTURE.md ("Layers"), kept: src/core is split into the vocabulary,
 * access and the engine; the engine knows no single command, no group order, no feature and no
 * wall clock; the vocabulary imports nothing else; the services object is built once, typed.
 * dependency-cruiser (`npm run lint:imports`) enforces the import rules; this keeps what it cannot
 * see.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

function filesUnder(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const rel = `${dir}/${name}`;
    return statSync(join(root, rel)).isDirectory() ? filesUnder(rel) : rel.endsWith('.ts') ? [rel] : [];
  });
}

const read = (rel: string) => readFileSync(join(root, rel), 'utf8');
// Built from parts so that this file does not match itself.
const pattern = (...parts: string[]) => new RegExp(parts.join(''));
const importsOf = (rel: string) => [...read(rel).matchAll(/(?:from|import\()\s*'([^']+)'/g)].map((m) => m[1]);

describe('the layout', () => {
  it('has a folder for each layer, each with its index.ts, and no src/core', () => {
    for (const room of ['vocabulary', 'store', 'access', 'engine', 'app', 'demo', 'cli', 'doctor']) {
      expect(existsSync(join(root, 'src', room, room === 'cli' ? 'main.ts' : 'index.ts')), room).toBe(true);
    }
    expect(existsSync(join(root, 'src/core'))).toBe(false);
  });

  it('keeps at the top of src/ only the leaves every room may import', () => {
    const top = readdirSync(join(root, 'src')).filter((n) => n.endsWith('.ts'));
    expect(top.sort()).toEqual(['bip39-words.ts', 'config.ts', 'log.ts', 'metrics.ts', 'redact.ts']);
  });

  it('keeps the vocabulary a leaf: it imports only its own files and packages', () => {
    const vocabulary = filesUnder('src/vocabulary');
    expect(vocabulary.length).toBeGreaterThan(5);
    const outside = vocabulary.flatMap((f) =>
      importsOf(f)
        .filter((s) => s.startsWith('.') && !s.startsWith('./'))
        .map((s) => `${f}: ${s}`),
    );
    expect(outside).toEqual([]);
  });
});

describe('the command engine', () => {
  const engine = filesUnder('src/engine');

  it('names no command of its own and keeps no wall clock (the clock is services.now)', () => {
    const offenders = [...engine, ...filesUnder('src/access'), ...filesUnder('src/vocabulary')].filter(
      (f) => pattern("endsWith\\('", 'destroy').test(read(f)) || pattern('Date', '\\.now\\(\\)').test(read(f)),
    );
    expect(offenders).toEqual([]);
  });

  it('keeps no order of groups or actions: commands/ gives it', () => {
    const groups = ['wallet', 'invoice', 'swap', 'peer', 'asset', 'net'];
    const offenders = engine.filter((f) => groups.some((g) => read(f).includes(`'${g}'`)));
    expect(offenders).toEqual([]);
  });

  it('imports no feature and no concrete Services: it is generic over the services it is given', () => {
    const features = /\/(notify|reports|activity|webhooks|chat|app|demo|cli|doctor)\/|commands\//;
    const offenders = engine.flatMap((f) =>
      importsOf(f)
        .filter((s) => features.test(s))
        .map((s) => `${f}: ${s}`),
    );
    expect(offenders).toEqual([]);
    expect(read('src/engine/create-dispatcher.ts')).toMatch(/createDispatcher<Svc extends EngineServices>/);
  });

  it('keeps each file of the dispatcher and its pipeline at most 300 lines', () => {
    const dispatcher = engine.filter((f) => f.includes('/pipeline/') || f.endsWith('create-dispatcher.ts'));
    expect(dispatcher.length).toBeGreaterThan(10);
    const long = dispatcher.filter((f) => read(f).split('\n').length > 300);
    expect(long).toEqual([]);
  });
});

describe('the architecture document', () => {
  it('exists, and the code cites it (and no design document the project does not have)', () => {
    const files = [...filesUnder('src'), ...filesUnder('commands'), ...filesUnder('test')];
    const design = files.filter((f) => f !== 'test/project/layers.test.ts' && pattern('DESIGN', '(\\.md|\\b)').test(read(f)));
    expect(design).toEqual([]);
    const cited = new Set(files.flatMap((f) => [...read(f).matchAll(/\bdocs\/[\w.-]+\.md\b/g)].map((m) => m[0])));
    expect(cited.has('docs/ARCHITECTURE.md')).toBe(true);
    expect([...cited].filter((d) => !existsSync(join(root, d)))).toEqual([]);
  });

  it('has every section the code cites by name', () => {
    const doc = read('docs/ARCHITECTURE.md');
    const sections = new Set([...doc.matchAll(/^#+ (.+)$/gm)].map((m) => m[1].trim()));
    const files = [...filesUnder('src'), ...filesUnder('commands'), ...filesUnder('test')];
    const cites = files.flatMap((f) => [...read(f).matchAll(/docs\/ARCHITECTURE\.md,? \(?"([^"]+)"/g)].map((m) => ({ f, section: m[1] })));
    expect(cites.length).toBeGreaterThan(5);
    expect(cites.filter((c) => !sections.has(c.section))).toEqual([]);
  });
});

describe('the services object', () => {
  it('is never extended by declaration merging, cast, or filled in after it is built', () => {
    const files = [...filesUnder('src'), ...filesUnder('commands')];
    const merging = files.filter((f) => pattern('declare ', 'module').test(read(f)));
    const cast = files.filter(
      (f) => pattern('as ', 'Services\\b').test(read(f)) || pattern('Object', '\\.assign\\(services').test(read(f)),
    );
    expect(merging).toEqual([]);
    expect(cast).toEqual([]);
  });
});
