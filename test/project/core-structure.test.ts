/**
 * The structure issue #11 asks for, kept: core knows no single command, reads no wall clock of
 * its own, the dispatcher's files stay small, and the services object is built once, typed, in
 * the composition root.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
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

describe('the command core', () => {
  const core = filesUnder('src/core');

  it('names no command of its own and keeps no wall clock (the clock is Services.now)', () => {
    const offenders = core.filter((f) => pattern("endsWith\\('", 'destroy').test(read(f)) || pattern('Date', '\\.now\\(\\)').test(read(f)));
    expect(offenders).toEqual([]);
  });

  it('keeps each file of the dispatcher and its pipeline at most 300 lines', () => {
    const dispatcher = core.filter((f) => f.includes('/pipeline/') || f.endsWith('create-dispatcher.ts'));
    expect(dispatcher.length).toBeGreaterThan(10);
    const long = dispatcher.filter((f) => read(f).split('\n').length > 300);
    expect(long).toEqual([]);
  });
});

describe('the services object', () => {
  it('is never extended by declaration merging, cast, or filled in after it is built', () => {
    const files = [...filesUnder('src'), ...filesUnder('commands')];
    const merging = files.filter((f) => pattern('declare ', 'module').test(read(f)));
    const cast = files.filter((f) => pattern('as ', 'Services\\b').test(read(f)) || pattern('Object', '\\.assign\\(services').test(read(f)));
    expect(merging).toEqual([]);
    expect(cast).toEqual([]);
  });
});
