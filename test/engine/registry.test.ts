import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createRegistry } from '../../src/engine/registry.js';
import { defineCommand } from '../../src/engine/types.js';
import { parseCommandLine } from '../../src/engine/parse-command-line.js';
import { fakeCommands } from '../support/core.js';
import { allCommands } from '../../commands/index.js';

const calls = () => ({ stop: [], info: [], unlock: [], destroy: [] });

const simple = (path: string) =>
  defineCommand({
    path,
    summary: 's',
    example: `/rln ${path}`,
    args: z.object({}),
    role: 'read',
    confirm: 'none',
    mutates: false,
    handler: async () => ({ blocks: [] }),
  });

describe('createRegistry', () => {
  it('refuses two commands with the same path at start-up', () => {
    expect(() => createRegistry([simple('node list'), simple('node list')])).toThrow(/node list/);
  });

  it('refuses a malformed or internal path', () => {
    expect(() => createRegistry([simple('__confirm')])).toThrow(/malformed/);
    expect(() => createRegistry([simple('Node List')])).toThrow(/malformed/);
  });

  it('orders groups and actions as commands/ gives them, with a generated help per group last', () => {
    const r = createRegistry([
      simple('access list'),
      simple('node stop'),
      simple('node list'),
      simple('wallet address'),
      simple('access grant'),
      simple('help'),
    ]);
    expect(r.groups().map((g) => g.group)).toEqual(['access', 'node', 'wallet']);
    expect(r.groups()[1].actions.map((d) => d.path)).toEqual(['node stop', 'node list', 'node help']);
    expect(r.groups()[0].actions.map((d) => d.path)).toEqual(['access list', 'access grant', 'access help']);
    expect(r.get('node help')).toBeDefined();
    expect(r.topLevel().map((d) => d.path)).toEqual(['help']);
  });

  it("lists the project's commands in the order commands/index.ts gives them", () => {
    const groups = createRegistry(allCommands).groups();
    expect(groups.map((g) => g.group)).toEqual([
      'node',
      'wallet',
      'asset',
      'invoice',
      'pay',
      'channel',
      'peer',
      'net',
      'swap',
      'watch',
      'report',
      'access',
      'policy',
    ]);
    expect(groups.find((g) => g.group === 'wallet')!.actions.map((d) => d.path.split(' ')[1])).toEqual([
      'address',
      'balance',
      'unspents',
      'utxos',
      'transactions',
      'fee',
      'sign',
      'send',
      'help',
    ]);
  });

  it('derives positional arguments and argument specs from the schema', () => {
    const r = createRegistry(fakeCommands(calls()));
    const info = r.get('node info')!;
    expect(r.positional(info)).toEqual(['node']);
    expect(r.argSpecs(info)).toEqual([
      { name: 'node', description: 'Node name or id', required: true, kind: 'string' },
      { name: 'verbose', description: 'More detail', required: false, kind: 'boolean' },
    ]);
    const sched = r.get('report schedule')!;
    expect(r.positional(sched)).toEqual(['node']);
    const kind = r.argSpecs(sched).find((s) => s.name === 'kind')!;
    expect(kind).toMatchObject({ kind: 'enum', required: false, choices: ['balance', 'channels'] });
    expect(r.argSpecs(sched).find((s) => s.name === 'count')).toMatchObject({ kind: 'number', required: false });
    expect(r.nodeArg(info)).toBe('node');
    expect(r.nodeArg(r.get('access grant')!)).toBeUndefined();
  });

  it('finds the closest command for a typo', () => {
    const r = createRegistry(fakeCommands(calls()));
    expect(r.closest('node stp')).toBe('node stop');
    expect(r.closest('nod lst')).toBe('node list');
    expect(r.closest('acess grnt')).toBe('access grant');
    expect(r.closest('zzzzzzzzzzzz qqqqqqqqq')).toBeUndefined();
  });

  it('accepts the whole command tree, and `<group> help` parses for every group', () => {
    const r = createRegistry(allCommands);
    for (const g of r.groups()) {
      expect(parseCommandLine(`/rln ${g.group} help`, r).path).toBe(`${g.group} help`);
    }
    expect(parseCommandLine('/rln help', r).path).toBe('help');
    for (const d of r.all()) {
      // Every argument spec is derivable (the Discord adapter registers options from it).
      for (const s of r.argSpecs(d)) expect(['string', 'number', 'boolean', 'enum']).toContain(s.kind);
    }
  });
});
