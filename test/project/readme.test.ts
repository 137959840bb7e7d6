/**
 * The README stays a guide for operators (issue 24): short, with a table of contents whose
 * links land, no dated benchmark runs (they live in docs/benchmarks.md), and, in it and in
 * every docs/*.md, links that point at files that exist and tables GitHub can render.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const README = 'README.md';
const MAX_LINES = 550;

/** README.md and every markdown file in docs/, relative to the root. */
function documents(): string[] {
  const docs = existsSync(join(root, 'docs'))
    ? readdirSync(join(root, 'docs'))
        .filter((f) => f.endsWith('.md'))
        .map((f) => `docs/${f}`)
    : [];
  return [README, ...docs];
}

const read = (rel: string) => readFileSync(join(root, rel), 'utf8');

interface Line {
  n: number;
  text: string;
}

/** The lines outside fenced code blocks, numbered from 1. */
function prose(text: string): Line[] {
  const out: Line[] = [];
  let fence: string | null = null;
  text.split('\n').forEach((text, i) => {
    const m = /^\s{0,3}(`{3,}|~{3,})/.exec(text);
    if (m) {
      if (fence === null) fence = m[1][0]!;
      else if (m[1][0] === fence) fence = null;
      return;
    }
    if (fence === null) out.push({ n: i + 1, text });
  });
  return out;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-');
}

interface Heading {
  level: number;
  text: string;
  anchor: string;
}

function headings(text: string): Heading[] {
  const seen = new Map<string, number>();
  return prose(text).flatMap(({ text: line }) => {
    const m = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) return [];
    const base = slug(m[2]);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    return [{ level: m[1].length, text: m[2], anchor: count ? `${base}-${count}` : base }];
  });
}

/** Link targets outside code: inline links and reference definitions (code spans skipped). */
function links(text: string): Array<{ n: number; target: string }> {
  return prose(text).flatMap(({ n, text: line }) => {
    const bare = line.replace(/(`+)[^`]*?\1/g, '');
    const inline = [...bare.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]);
    const ref = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/.exec(bare);
    return [...inline, ...(ref ? [ref[1]] : [])].map((target) => ({ n, target }));
  });
}

/** Where a link does not land, or null. `file` is the document it is in, relative to the root. */
function brokenLink(file: string, target: string): string | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return null; // https:, mailto:, …
  const hash = target.indexOf('#');
  const path = hash < 0 ? target : target.slice(0, hash);
  const anchor = hash < 0 ? '' : decodeURIComponent(target.slice(hash + 1));
  const abs = path ? resolve(root, dirname(file), decodeURIComponent(path)) : join(root, file);
  const rel = relative(root, abs);
  if (rel.startsWith('..')) return `${target}: outside the project`;
  if (!existsSync(abs)) return `${target}: no file ${rel}`;
  if (anchor && abs.endsWith('.md') && !headings(readFileSync(abs, 'utf8')).some((h) => h.anchor === anchor)) {
    return `${target}: no heading #${anchor} in ${rel}`;
  }
  return null;
}

/** Cells of a table row, split as GitHub does: on every pipe not escaped with a backslash. */
function cells(row: string): string[] {
  const inner = row
    .trim()
    .replace(/^\|/, '')
    .replace(/(?<!\\)\|$/, '');
  return inner.split(/(?<!\\)\|/);
}

const SEPARATOR = /^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/;

/** Each problem of the tables in a document: a block of lines starting with `|`. */
function tableProblems(text: string): string[] {
  const problems: string[] = [];
  const lines = prose(text);
  for (let i = 0; i < lines.length; ) {
    if (!/^\s{0,3}\|/.test(lines[i].text)) {
      i++;
      continue;
    }
    const block: Line[] = [];
    const follows = (l: Line) => block.length === 0 || l.n === block[block.length - 1].n + 1;
    while (i < lines.length && follows(lines[i]) && /^\s{0,3}\|/.test(lines[i].text)) block.push(lines[i++]);
    const [header, separator, ...rows] = block;
    const width = cells(header.text).length;
    if (!separator || !SEPARATOR.test(separator.text)) {
      problems.push(`line ${header.n}: a table's second line must be its |---| separator`);
      continue;
    }
    for (const row of [separator, ...rows]) {
      const got = cells(row.text).length;
      if (got !== width) problems.push(`line ${row.n}: ${got} cells where the header has ${width}`);
    }
  }
  return problems;
}

/** A run's time of day in UTC ("05:41 UTC", "06:03–06:06 UTC"): the mark of a dated benchmark run. */
const RUN_TIME = /\b\d{1,2}:\d{2}(?:\s*[–-]\s*\d{1,2}:\d{2})?\s*UTC\b/;
/** A date beside a measurement on one line: a dated run written without its time. */
const MEASURE = String.raw`(events\/s|\bp99\b|µs\b|\bMiB\b|\bload average\b|\b[Rr]un [A-Z0-9]\b)`;
const ISO_DATE = String.raw`\b20\d\d-\d\d-\d\d\b`;
const DATED_FIGURE = new RegExp(`${ISO_DATE}.*${MEASURE}|${MEASURE}.*${ISO_DATE}`);

describe('README.md', () => {
  const text = read(README);

  it(`is under ${MAX_LINES} lines`, () => {
    expect(text.split('\n').length).toBeLessThan(MAX_LINES);
  });

  it('has a table of contents that lists every section, each link landing on its heading', () => {
    const all = headings(text);
    const contents = all.find((h) => /^(table of )?contents$/i.test(h.text));
    expect(contents, 'a "## Contents" heading').toBeDefined();
    const lines = prose(text);
    const start = lines.findIndex((l) => /^#{1,6}\s+(table of )?contents\s*$/i.test(l.text));
    const end = lines.findIndex((l, i) => i > start && /^#{1,6}\s/.test(l.text));
    const entries = lines
      .slice(start + 1, end)
      .flatMap((l) => [...l.text.matchAll(/\]\(#([^)]+)\)/g)].map((m) => decodeURIComponent(m[1])));
    expect(entries.length).toBeGreaterThanOrEqual(5);
    const anchors = new Set(all.map((h) => h.anchor));
    expect(entries.filter((a) => !anchors.has(a))).toEqual([]);
    const sections = all.filter((h) => h.level === 2 && h !== contents).map((h) => h.anchor);
    expect(sections.filter((a) => !entries.includes(a))).toEqual([]);
  });

  it('holds no dated benchmark runs (they belong in docs/benchmarks.md)', () => {
    const dated = prose(text).filter((l) => RUN_TIME.test(l.text) || DATED_FIGURE.test(l.text));
    expect(dated.map((l) => `line ${l.n}: ${l.text.slice(0, 100)}`)).toEqual([]);
  });

  it('keeps one table of the current benchmark figures, with the command that produces them', () => {
    const performance = text.slice(text.search(/^## Performance\s*$/m));
    const section = performance.slice(0, performance.slice(3).search(/^## /m) + 3 || undefined);
    expect(section).toContain('npm run bench');
    expect(section).toContain('--only intake');
    expect(section).toContain('docs/benchmarks.md');
    expect(section.split('\n').filter((l) => SEPARATOR.test(l) && l.includes('|'))).toHaveLength(1);
  });

  it('says how long the tests take and how to run one file', () => {
    expect(text).toMatch(/npm test[^\n]*under \d+ minutes/);
    expect(text).toContain('npx vitest run test/');
  });
});

describe('the README and docs/*.md', () => {
  it('has docs/benchmarks.md, where the benchmark history lives', () => {
    expect(documents()).toContain('docs/benchmarks.md');
  });

  it.each(documents())('%s: every relative link points at a file (and heading) that exists', (file) => {
    const broken = links(read(file)).flatMap(({ n, target }) => {
      const why = brokenLink(file, target);
      return why ? [`line ${n}: ${why}`] : [];
    });
    expect(broken).toEqual([]);
  });

  it.each(documents())('%s: every table has as many cells in each row as in its header', (file) => {
    expect(tableProblems(read(file))).toEqual([]);
  });
});
