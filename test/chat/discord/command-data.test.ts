import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createRegistry } from '../../../src/engine/index.js';
import { defineCommand, type CommandDefinition } from '../../../src/engine/types.js';
import { allCommands } from '../../../commands/index.js';
import {
  buildCommandData,
  buildCommandIndexAndData,
  commandTotalChars,
  commandWords,
  toOptionName,
  type ChatInputCommandData,
} from '../../../src/chat/discord/build-command-data.js';
import { DISCORD_MAX_COMMAND_TOTAL_CHARS } from '../../../src/chat/discord/limits.js';
import { dialogToModal } from '../../../src/chat/discord/render.js';
import { toCommand, walkOptions } from '../../../src/chat/discord/parse-interaction.js';
import { commandProblems, modalProblems } from './check-limits.js';

const def = (path: string, args: z.ZodObject<z.ZodRawShape>, extra: Partial<CommandDefinition<any>> = {}) =>
  defineCommand({
    path,
    summary: `Do ${path}`,
    example: `/rln ${path}`,
    args,
    role: 'read',
    confirm: 'none',
    mutates: false,
    handler: async () => ({ blocks: [] }),
    ...extra,
  });

/** The command named `name` (`rln`, `rln-asset`) of the built data. */
const command = (data: ChatInputCommandData[], name: string) => data.find((c) => c.name === name)!;

describe('the Discord command data', () => {
  it('covers every command of the registry within Discord limits: /rln for top-level actions, /rln-<group> per group', () => {
    const registry = createRegistry(allCommands);
    const data = buildCommandData(registry);
    for (const c of data) {
      expect({ name: c.name, problems: commandProblems(c) }).toEqual({ name: c.name, problems: [] });
      expect(commandTotalChars(c)).toBeLessThanOrEqual(DISCORD_MAX_COMMAND_TOTAL_CHARS);
      // Subcommands only: no subcommand groups are needed any more.
      expect(c.options.every((o) => o.type === 1)).toBe(true);
    }
    const registered = new Set<string>();
    for (const c of data) {
      for (const o of c.options) registered.add(c.name === 'rln' ? o.name : `${c.name.slice('rln-'.length)} ${o.name}`);
    }
    for (const d of registry.all()) expect(registered).toContain(d.path);
    expect(command(data, 'rln').options.map((o) => o.name)).toEqual(expect.arrayContaining(['help']));
    expect(command(data, 'rln-node').options.map((o) => o.name)).toEqual(expect.arrayContaining(['stop', 'destroy', 'help']));
  });

  it('sends every description whole: each equals the summary or argument description it comes from', () => {
    const registry = createRegistry(allCommands);
    const data = buildCommandData(registry);
    const truncated: string[] = [];
    let checked = 0;
    for (const c of data) {
      const group = c.name === 'rln' ? undefined : c.name.slice('rln-'.length);
      for (const sub of c.options) {
        const def = registry.get(group ? `${group} ${sub.name}` : sub.name);
        if (!def) continue; // the generated `<group> help`
        checked++;
        if (sub.description !== def.summary.replace(/\s+/g, ' ').trim()) truncated.push(`${c.name} ${sub.name}`);
        const specs = new Map(registry.argSpecs(def).map((s) => [toOptionName(s.name), s]));
        for (const o of sub.options ?? []) {
          const want = (specs.get(o.name)?.description ?? '').replace(/\s+/g, ' ').trim() || specs.get(o.name)?.name;
          if (!o.description.startsWith(want ?? '\u0000')) truncated.push(`${c.name} ${sub.name} ${o.name}: "${o.description}"`);
          if (o.description.endsWith('…')) truncated.push(`${c.name} ${sub.name} ${o.name} ends in …`);
        }
      }
    }
    expect(checked).toBe(registry.all().length);
    expect(truncated).toEqual([]);
    // The example from the issue: the unit of an amount survives.
    const amt = data.flatMap((c) => c.options.flatMap((s) => s.options ?? [])).find((o) => o.name === 'amt_msat');
    if (amt) expect(amt.description.length).toBeGreaterThan('Amount in…'.length);
  });

  it('refuses a description too long for Discord rather than cutting it', () => {
    const long = 'x'.repeat(101);
    expect(() => buildCommandData(createRegistry([def('node stop', z.object({}), { summary: long })]))).toThrow(/node stop.*101.*shorten/);
    expect(() => buildCommandData(createRegistry([def('node stop', z.object({ node: z.string().describe(long) }))]))).toThrow(
      /node stop node/,
    );
  });

  it('puts required options first, autocompletes the node, and maps option names back to arguments', () => {
    const registry = createRegistry([
      def(
        'asset send',
        z.object({
          note: z.string().optional().describe('A note'),
          node: z.string().describe('Node name or id'),
          assetId: z.string().describe('The asset'),
          amount: z.number().describe('How much'),
          kind: z.enum(['a', 'b']).describe('Which kind'),
        }),
      ),
      def('help', z.object({ topic: z.string().optional().describe('A group') })),
    ]);
    const { data, index } = buildCommandIndexAndData(registry);
    const send = command(data, 'rln-asset').options.find((o) => o.name === 'send')!;
    expect(send.options!.map((o) => [o.name, o.required, o.type])).toEqual([
      ['node', true, 3],
      ['asset_id', true, 3],
      ['amount', true, 10],
      ['kind', true, 3],
      ['note', false, 3],
    ]);
    expect(send.options![0].autocomplete).toBe(true);
    expect(send.options![3].choices).toEqual([
      { name: 'a', value: 'a' },
      { name: 'b', value: 'b' },
    ]);
    // `/rln-asset send` maps back to the registry's `asset send`.
    const walked = walkOptions([
      {
        name: 'send',
        type: 1,
        options: [
          { name: 'asset_id', type: 3, value: 'rgb:x' },
          { name: 'amount', type: 10, value: 5 },
        ],
      },
    ]);
    expect(toCommand(index, commandWords('rln-asset', walked.words)!, walked.values)).toEqual({
      path: 'asset send',
      args: { assetId: 'rgb:x', amount: '5' },
    });
    expect(command(data, 'rln-asset').options.map((o) => o.name)).toContain('help');
    expect(toCommand(index, commandWords('rln-asset', ['help'])!, {}).path).toMatch(/help$/);
    expect(commandWords('other', ['x'])).toBeUndefined();
  });

  it('refuses a group whose whole descriptions pass the combined length limit, naming it', () => {
    const long = 'x'.repeat(100);
    const defs = Array.from({ length: 24 }, (_, a) =>
      def(
        `g a${a}`,
        z.object({
          one: z.string().describe(long),
          two: z.string().optional().describe(long),
          three: z.string().optional().describe(long),
        }),
        { summary: long },
      ),
    );
    expect(() => buildCommandData(createRegistry(defs))).toThrow(/\/rln-g is \d+ characters/);
  });

  it('offers enum values as choices only when Discord can hold every value', () => {
    const long = 'v'.repeat(101);
    const { data } = buildCommandIndexAndData(
      createRegistry([
        def('report send', z.object({ short: z.enum(['a', 'b']).describe('Short'), long: z.enum(['a', long]).describe('Long') })),
      ]),
    );
    const send = command(data, 'rln-report').options.find((o) => o.name === 'send')!;
    expect(send.options!.find((o) => o.name === 'short')!.choices).toHaveLength(2);
    expect(send.options!.find((o) => o.name === 'long')!.choices).toBeUndefined();
    for (const c of data) expect(commandProblems(c)).toEqual([]);
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

describe("the Discord commands' install scope", () => {
  it("is a server install only, usable in servers and in the bot's direct messages", () => {
    for (const c of buildCommandData(createRegistry(allCommands))) {
      expect(c.integration_types).toEqual([0]);
      expect(c.contexts).toEqual([0, 1]);
    }
  });
});
