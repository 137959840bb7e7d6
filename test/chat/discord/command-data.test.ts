import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createRegistry } from '../../../src/core/index.js';
import { defineCommand, type CommandDefinition } from '../../../src/core/types.js';
import { allCommands } from '../../../commands/index.js';
import { buildCommandData, buildCommandIndexAndData, commandTotalChars } from '../../../src/chat/discord/build-command-data.js';
import { DISCORD_MAX_COMMAND_TOTAL_CHARS } from '../../../src/chat/discord/limits.js';
import { dialogToModal } from '../../../src/chat/discord/render.js';
import { toCommand, walkOptions } from '../../../src/chat/discord/parse-interaction.js';
import { commandProblems, modalProblems } from './check-limits.js';

const def = (path: string, args: z.ZodObject<z.ZodRawShape>, extra: Partial<CommandDefinition<any>> = {}) =>
  defineCommand({ path, summary: `Do ${path}`, example: `/rln ${path}`, args, role: 'read', confirm: 'none', mutates: false, handler: async () => ({ blocks: [] }), ...extra });

describe('the /rln command data', () => {
  it('covers every command of the registry within Discord limits', () => {
    const registry = createRegistry(allCommands);
    const data = buildCommandData(registry);
    expect(commandProblems(data)).toEqual([]);
    expect(commandTotalChars(data)).toBeLessThanOrEqual(DISCORD_MAX_COMMAND_TOTAL_CHARS);
    const registered = new Set<string>();
    for (const o of data.options) {
      if (o.type === 1) registered.add(o.name);
      else for (const s of o.options ?? []) registered.add(`${o.name} ${s.name}`);
    }
    for (const d of registry.all()) expect(registered).toContain(d.path);
  });

  it('puts required options first, autocompletes the node, and maps option names back to arguments', () => {
    const registry = createRegistry([
      def('asset send', z.object({
        note: z.string().optional().describe('A note'),
        node: z.string().describe('Node name or id'),
        assetId: z.string().describe('The asset'),
        amount: z.number().describe('How much'),
        kind: z.enum(['a', 'b']).describe('Which kind'),
      })),
      def('help', z.object({ topic: z.string().optional().describe('A group') })),
    ]);
    const { data, index } = buildCommandIndexAndData(registry);
    const send = data.options.find((o) => o.name === 'asset')!.options!.find((o) => o.name === 'send')!;
    expect(send.options!.map((o) => [o.name, o.required, o.type])).toEqual([
      ['node', true, 3],
      ['asset_id', true, 3],
      ['amount', true, 10],
      ['kind', true, 3],
      ['note', false, 3],
    ]);
    expect(send.options![0].autocomplete).toBe(true);
    expect(send.options![3].choices).toEqual([{ name: 'a', value: 'a' }, { name: 'b', value: 'b' }]);
    const walked = walkOptions([{ name: 'asset', type: 2, options: [{ name: 'send', type: 1, options: [{ name: 'asset_id', type: 3, value: 'rgb:x' }, { name: 'amount', type: 10, value: 5 }] }] }]);
    expect(toCommand(index, walked.words, walked.values)).toEqual({ path: 'asset send', args: { assetId: 'rgb:x', amount: '5' } });
    expect(data.options.find((o) => o.name === 'asset')!.options!.map((o) => o.name)).toContain('help');
  });

  it('shortens descriptions visibly rather than passing the combined length limit', () => {
    const long = 'x'.repeat(100);
    const defs = Array.from({ length: 12 }, (_, g) =>
      Array.from({ length: 10 }, (_, a) => def(`g${g} a${a}`, z.object({ one: z.string().describe(long), two: z.string().optional().describe(long) }), { summary: long })),
    ).flat();
    const data = buildCommandData(createRegistry(defs));
    expect(commandProblems(data)).toEqual([]);
    const sub = data.options[0].options![0];
    expect(sub.description.endsWith('…')).toBe(true);
  });

  it('keeps subcommand group descriptions short, leaving the combined budget to what the picker shows', () => {
    const registry = createRegistry(allCommands);
    const data = buildCommandData(registry);
    const groups = data.options.filter((o) => o.type === 2);
    expect(groups.length).toBeGreaterThan(0);
    for (const g of groups) expect(g.description).toBe(`${g.name[0].toUpperCase()}${g.name.slice(1)} commands`);
  });

  it('offers enum values as choices only when Discord can hold every value', () => {
    const long = 'v'.repeat(101);
    const { data } = buildCommandIndexAndData(createRegistry([
      def('report send', z.object({ short: z.enum(['a', 'b']).describe('Short'), long: z.enum(['a', long]).describe('Long') })),
    ]));
    const send = data.options.find((o) => o.name === 'report')!.options!.find((o) => o.name === 'send')!;
    expect(send.options!.find((o) => o.name === 'short')!.choices).toHaveLength(2);
    expect(send.options!.find((o) => o.name === 'long')!.choices).toBeUndefined();
    expect(commandProblems(data)).toEqual([]);
  });

  it('refuses a command with more than 25 arguments', () => {
    const shape = Object.fromEntries(Array.from({ length: 26 }, (_, i) => [`a${i}`, z.string().optional()]));
    expect(() => buildCommandData(createRegistry([def('node big', z.object(shape))]))).toThrow(/25/);
  });

  it('renders every command dialog of the registry as a modal within the limits', () => {
    for (const d of allCommands) {
      if (!d.secrets?.length) continue;
      const modal = dialogToModal({ id: 'd_0123456789ab', title: d.summary, submitLabel: 'Go', fields: d.secrets });
      expect({ path: d.path, problems: modalProblems(modal) }).toEqual({ path: d.path, problems: [] });
    }
  });
});

describe('the /rln command\'s install scope', () => {
  it('is a server install only, usable in servers and in the bot\'s direct messages', () => {
    const data = buildCommandData(createRegistry(allCommands));
    expect(data.integration_types).toEqual([0]);
    expect(data.contexts).toEqual([0, 1]);
  });
});
