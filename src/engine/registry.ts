/**
 * The command registry: every definition once, checked at start-up. Slack/shell parsing,
 * Discord registration, help and "did you mean" are all derived from it.
 */
import { z } from 'zod';
import { defineCommand, type AnyCommand, type CommandGroup, type Registry } from './types.js';
import { argSpecsOf, type ArgSpec } from './arg-specs.js';
import { editDistance, type Role } from '../vocabulary/index.js';
import { renderHelp } from './render-help.js';

const PATH_RE = /^[a-z][a-z0-9-]*( [a-z][a-z0-9-]*)?$/;

/**
 * Builds the registry. Throws at start-up on a duplicate or malformed path. `roleOverrides` are
 * roles set by configuration over a command's own (`audit`: AUDIT_READ_ROLE): the role step
 * checks, and help shows, what `roleOf` says.
 */
export function createRegistry(defs: AnyCommand[], opts: { roleOverrides?: Record<string, Role> } = {}): Registry {
  const overrides = opts.roleOverrides ?? {};
  const byPath = new Map<string, AnyCommand>();
  for (const def of defs) {
    if (!def || typeof def.path !== 'string') throw new Error('a command definition has no path');
    if (!PATH_RE.test(def.path)) {
      throw new Error(
        `command path "${def.path}" is malformed: use "<group> <action>" or one word, lower case (internal names like __confirm are reserved)`,
      );
    }
    if (byPath.has(def.path)) throw new Error(`two commands are defined with the path "${def.path}": each path must be defined once`);
    if (!def.args || typeof def.args.shape !== 'object')
      throw new Error(`command "${def.path}" has no zod object schema for its arguments`);
    byPath.set(def.path, def);
  }

  const groupNames = new Set<string>();
  for (const path of byPath.keys()) if (path.includes(' ')) groupNames.add(path.split(' ')[0]);

  // `<group> help` for every group, so it parses and registers like any command.
  for (const group of groupNames) {
    const path = `${group} help`;
    if (byPath.has(path)) continue;
    byPath.set(
      path,
      defineCommand({
        path,
        summary: `Describe the ${group} commands`,
        example: `/rln ${group} help`,
        args: z.object({ action: z.string().min(1).optional().describe(`One ${group} action, for its details`) }),
        positional: ['action'],
        role: 'read',
        confirm: 'none',
        mutates: false,
        nodeArg: false,
        handler: async (ctx) => renderHelp(registry, group, ctx.args.action, ctx.place.platform),
      }),
    );
  }

  const specsCache = new WeakMap<AnyCommand, ArgSpec[]>();
  const argSpecs = (def: AnyCommand): ArgSpec[] => {
    let s = specsCache.get(def);
    if (!s) {
      s = argSpecsOf(def.args);
      specsCache.set(def, s);
    }
    return s;
  };

  // The commands are fixed once built: the grouping is worked out once, not on every parse.
  let grouped: CommandGroup[] | undefined;
  const groups = (): CommandGroup[] => (grouped ??= groupCommands());
  const groupCommands = (): CommandGroup[] => {
    return [...groupNames].map((group) => {
      const actions = [...byPath.values()]
        .filter((d) => d.path.startsWith(`${group} `))
        // Definition order, `help` last (a group's own `help` may be defined anywhere).
        .sort((a, b) => Number(a.path === `${group} help`) - Number(b.path === `${group} help`));
      return { group, actions };
    });
  };

  const topLevel = () => [...byPath.values()].filter((d) => !d.path.includes(' '));

  const registry: Registry = {
    all: () => [...groups().flatMap((g) => g.actions), ...topLevel()],
    get: (path) => byPath.get(path.trim().replace(/\s+/g, ' ').toLowerCase()),
    groups,
    topLevel,
    positional: (def) => {
      if (def.positional) return [...def.positional];
      return argSpecs(def)
        .filter((s) => s.required)
        .map((s) => s.name);
    },
    nodeArg: (def) => {
      if (def.nodeArg === false) return undefined;
      if (typeof def.nodeArg === 'string') return def.nodeArg;
      return 'node' in def.args.shape ? 'node' : undefined;
    },
    closest: (text) => {
      const t = text.trim().toLowerCase().replace(/\s+/g, ' ');
      if (!t) return undefined;
      const words = t.split(' ');
      // Compare with as many words as the candidate path has.
      let best: { path: string; d: number } | undefined;
      for (const p of byPath.keys()) {
        const typed = words.slice(0, p.split(' ').length).join(' ');
        const d = distance(typed, p);
        if (!best || d < best.d || (d === best.d && p.length < best.path.length)) best = { path: p, d };
      }
      if (!best) return undefined;
      const limit = Math.max(2, Math.ceil(best.path.length / 3));
      return best.d <= limit ? best.path : undefined;
    },
    argSpecs,
    roleOf: (def) => overrides[def.path] ?? def.role,
  };
  return registry;
}

/** Edit distance, with a typed prefix of the path counting as near. */
function distance(typed: string, path: string): number {
  // A prefix counts only from three letters on: `n` alone is no hint of `net info` (P46).
  if (typed.length >= 3 && path.startsWith(typed)) return Math.min(1, path.length - typed.length);
  return editDistance(typed, path);
}
