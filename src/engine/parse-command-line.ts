/**
 * Slack and shell syntax: `/rln <group> <action> [args]`. Required arguments are positional in
 * schema order, any argument may be `key=value`, values with spaces are quoted. Anything wrong
 * becomes a UserError; nothing else is ever thrown. Values are never echoed in errors.
 */
import { UserError } from '../vocabulary/index.js';
import type { AnyCommand, Registry } from './types.js';
import { findInlineSecret, withoutSecrets } from './inline-secret.js';
import { registerTypedSecret } from '../log.js';

export interface ParsedCommand {
  path: string;
  args: Record<string, string>;
}

const QUOTE_PAIRS: Record<string, string[]> = {
  '"': ['"'],
  "'": ["'"],
  '`': ['`'],
  '“': ['”', '“'],
  '”': ['”'],
  '‘': ['’'],
  '’': ['’'],
  '„': ['“', '”'],
  '«': ['»'],
};

/** Splits on whitespace, honouring quotes at the start of a token or right after `key=`. */
export function tokenize(text: string): string[] {
  const tokens: string[] = [];
  let cur = '';
  let inToken = false;
  let closers: string[] | null = null;
  for (const ch of text) {
    if (closers) {
      if (closers.includes(ch)) closers = null;
      else cur += ch;
      continue;
    }
    if (/\s/u.test(ch)) {
      if (inToken) tokens.push(cur);
      cur = '';
      inToken = false;
      continue;
    }
    const canOpen = !inToken || /^[A-Za-z_][\w-]*=$/.test(cur);
    if (canOpen && QUOTE_PAIRS[ch]) {
      closers = QUOTE_PAIRS[ch];
      inToken = true;
      continue;
    }
    cur += ch;
    inToken = true;
  }
  if (inToken) tokens.push(cur);
  return tokens;
}

/**
 * Unknown text is never repeated back or logged: a password pasted as the whole `/rln` line
 * would be. Only the registry's own words (group and action names) are quoted; suggestions
 * come from the registry.
 */
function unknownCommand(registry: Registry, words: string[]): UserError {
  const near = registry.closest(words.join(' '));
  const group = registry.groups().find((g) => g.group === words[0]?.toLowerCase());
  const what = group
    ? `\`${group.group}\` has no such action. Its actions: ${group.actions.map((d) => d.path.slice(group.group.length + 1)).join(', ')}.`
    : 'There is no command like that.';
  return new UserError(
    'unknown_command',
    what,
    near ? `Did you mean \`/rln ${near}\`? Type \`/rln help\` for every command.` : 'Type `/rln help` for every command.',
    { closest: near },
  );
}

/** Strips `/rln`, and backticks wrapping the whole line (pasted from help). */
export function stripPrefix(text: string): string {
  let t = text.trim();
  if (t.length > 1 && t.startsWith('`') && t.endsWith('`') && !t.slice(1, -1).includes('`')) t = t.slice(1, -1).trim();
  t = t.replace(/^\/?rln(?=\s|$)/i, '').trim();
  return t;
}

export function parseCommandLine(text: string, registry: Registry): ParsedCommand {
  const tokens = tokenize(stripPrefix(typeof text === 'string' ? text : ''));
  if (!tokens.length) return { path: 'help', args: {} };
  const w0 = tokens[0].toLowerCase();
  const w1 = tokens[1]?.toLowerCase();
  const groups = new Set(registry.groups().map((g) => g.group));

  let path: string;
  let rest: string[];
  if (w0 === 'help' && w1 && groups.has(w1) && registry.get(`${w1} help`)) {
    path = `${w1} help`;
    rest = tokens.slice(2);
  } else if (w1 !== undefined && registry.get(`${w0} ${w1}`)) {
    path = `${w0} ${w1}`;
    rest = tokens.slice(2);
  } else if (!groups.has(w0) && registry.get(w0) && w0 !== 'help' && tokens.length === 2 && w1 === 'help' && registry.get('help')) {
    // `/rln audit help` asks for help about `audit`, not for the audit trail of a node called help.
    return { path: 'help', args: { group: w0 } };
  } else if (!groups.has(w0) && registry.get(w0)) {
    path = w0;
    rest = tokens.slice(1);
  } else if (groups.has(w0) && w1 === undefined) {
    const actions = registry
      .groups()
      .find((g) => g.group === w0)!
      .actions.map((d) => d.path.slice(w0.length + 1));
    throw new UserError(
      'unknown_command',
      `\`${w0}\` needs an action: ${actions.join(', ')}.`,
      `Type \`/rln ${w0} help\` for what each one does.`,
    );
  } else {
    throw unknownCommand(registry, tokens.slice(0, 2));
  }

  const def = registry.get(path)!;
  const shape = def.args.shape as Record<string, unknown>;
  const args: Record<string, string> = {};
  const positionalValues: string[] = [];
  for (const tok of bindUnits(registry, def, rest)) {
    const m = /^([A-Za-z_][\w-]*)=([\s\S]*)$/.exec(tok);
    if (m) {
      let key = m[1];
      if (!(key in shape)) {
        const alt = key.replace(/-/g, '_');
        if (alt in shape) key = alt;
      }
      args[key] = m[2];
    } else {
      positionalValues.push(tok);
    }
  }
  const slots = registry.positional(def).filter((n) => !(n in args));
  positionalValues.slice(0, slots.length).forEach((v, i) => (args[slots[i]] = v));
  refuseBareAmounts(registry, def, slots.slice(0, positionalValues.length), args);
  const extra = positionalValues.length > slots.length;
  const inline = findInlineSecret(def, args);
  if (inline || (extra && (def.secrets?.length || def.confirm === 'typed-name'))) {
    // Whatever else logs the raw text (an adapter at debug level) masks these values from now on.
    if (inline) registerTypedSecret(args[inline], undefined, 'refused');
    for (const v of positionalValues.slice(slots.length)) registerTypedSecret(v, undefined, 'refused');
    // The refusal is audited with the arguments that are not secrets (the node, say), never the rest.
    throw secretInline(path, inline, withoutSecrets(def, args), def);
  }
  if (extra) {
    const takes = slots.length ? `takes ${slots.length} value(s) in order (${slots.join(', ')})` : 'takes no values without a name';
    throw new UserError(
      'invalid_arguments',
      `Too many values for \`${path}\`: it ${takes}.`,
      `Give other arguments as key=value, and quote values with spaces. Example: ${def.example}`,
    );
  }
  return { path, args };
}

const KEYED_RE = /^([A-Za-z_][\w-]*)=([\s\S]*)$/;
// A sign belongs to the number, so that `-5 sats` is read as one (negative) amount and refused as such.
const NUMBER_LIKE = /^[+-]?[\d.,_]*\d[\d.,_]*[kKM]?$/;
const BARE_NUMBER = /^[+-]?[\d.,_]*\d[\d.,_]*[kKM]?$/;

const UNIT_EXAMPLES: Record<string, string> = { sat: '50k sats', msat: '50k sats' };

/**
 * A bitcoin amount given in place (not `key=`) needs its unit (docs/ARCHITECTURE.md, "Amounts"): `pay keysend
 * alice bob 50k` could mean sats or msat, and is refused with an example naming one. Named, the
 * field's unit applies (`amt_msat=20000` is 20,000 msat).
 */
function refuseBareAmounts(registry: Registry, def: AnyCommand, positional: string[], args: Record<string, string>): void {
  const specs = new Map(registry.argSpecs(def).map((s) => [s.name, s]));
  for (const name of positional) {
    const unit = specs.get(name)?.amountUnit;
    const value = args[name]?.trim();
    if (!unit || !UNIT_EXAMPLES[unit] || value === undefined || !BARE_NUMBER.test(value)) continue;
    const fixed = unit === 'msat' ? 'millisats' : 'sats';
    throw new UserError(
      'invalid_arguments',
      `\`${name}\`: "${value}" has no unit. An amount in place needs one: sats, msat or BTC.`,
      `Example: ${def.example.replace(/^\/rln /, '`/rln ').replace(/$/, '`')}, or \`${UNIT_EXAMPLES[unit]}\`; named, a bare number is in ${fixed}: \`${name}=${value}\`.`,
      { arg: name },
    );
  }
}
const UNIT_WORD = /^[A-Za-z][A-Za-z0-9]{0,15}$/;

/**
 * `10 USDT` typed as two words is one amount (docs/ARCHITECTURE.md, "Amounts"): a unit word right after a
 * number that goes to an amount argument (positional or `key=`) is joined to it.
 */
function bindUnits(registry: Registry, def: AnyCommand, rest: string[]): string[] {
  const amounts = new Set(
    registry
      .argSpecs(def)
      .filter((s) => s.amount)
      .map((s) => s.name),
  );
  if (!amounts.size) return rest;
  const keyOf = (tok: string) => KEYED_RE.exec(tok)?.[1].replace(/-/g, '_');
  const keyed = new Set(rest.map(keyOf).filter((k): k is string => !!k));
  const slots = registry.positional(def).filter((n) => !keyed.has(n));
  const out: string[] = [];
  let pos = 0;
  for (let i = 0; i < rest.length; i++) {
    const tok = rest[i];
    const m = KEYED_RE.exec(tok);
    const arg = m ? keyOf(tok) : slots[pos++];
    const value = m ? m[2] : tok;
    const next = rest[i + 1];
    if (arg && amounts.has(arg) && NUMBER_LIKE.test(value) && next !== undefined && UNIT_WORD.test(next)) {
      out.push(`${tok} ${next}`);
      i++;
    } else out.push(tok);
  }
  return out;
}

export function secretInline(path: string, name?: string, safeArgs: Record<string, string> = {}, def?: AnyCommand): UserError {
  return new UserError(
    'secret_inline',
    name
      ? `\`${name}\` is a secret and is never accepted in a command line: it would be visible in the channel and in logs.`
      : `\`${path}\` takes its secrets only in a private dialog, not in the command line.`,
    secretInlineNext(path, name, safeArgs, def),
    { path, args: safeArgs },
  );
}

/**
 * What to do instead, as true for this command: its private dialog asks for the secret (maybe only with
 * an argument, `recover=true`), or the command takes no such secret at all.
 */
function secretInlineNext(path: string, name: string | undefined, safeArgs: Record<string, string>, def?: AnyCommand): string {
  const field = name ? def?.secrets?.find((f) => f.name.toLowerCase() === name.toLowerCase()) : undefined;
  const kept = Object.entries(safeArgs)
    .filter(([k]) => k !== field?.onlyWithArg)
    .map(([k, v]) => {
      const value = /^[^\s"]+$/.test(v) ? v : JSON.stringify(v);
      return k === 'node' ? value : `${k}=${value}`;
    });
  const line = (extra: string[]) => `\`/rln ${[path, ...kept, ...extra].join(' ')}\``;
  if (!name || !def) return `Run \`/rln ${path}\` without it: a private dialog will ask for it.`;
  if (!field) {
    const asks = def.secrets?.filter((f) => f.kind === 'secret').map((f) => f.label.toLowerCase()) ?? [];
    return asks.length
      ? `\`${path}\` does not take \`${name}\`: run ${line([])} without it (its private dialog asks only for: ${asks.join(', ')}).`
      : `\`${path}\` does not take \`${name}\`: run ${line([])} without it.`;
  }
  if (field.onlyWithArg) return `Run ${line([`${field.onlyWithArg}=true`])}: a private dialog will ask for it.`;
  return `Run ${line([])} without it: a private dialog will ask for it.`;
}
