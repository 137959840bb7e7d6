/**
 * What a command's zod schema says about each argument, in plain terms: help text, Discord
 * option registration and string-to-value conversion are derived from it.
 */
import { globalRegistry, safeParse, type z } from 'zod';
// Installs the argument messages users read instead of zod's validator texts.
import './zod-messages.js';

export type ArgKind = 'string' | 'number' | 'boolean' | 'enum';

export interface ArgSpec {
  name: string;
  description: string;
  required: boolean;
  kind: ArgKind;
  choices?: string[];
  /**
   * An amount that may carry a unit (`10 USDT`, `100k sats`): the schema is tagged with
   * `.meta({ amount: … })`. On Slack and the shell a unit typed as the next word binds to it.
   */
  amount?: boolean;
  /** The unit an amount's field fixes (`sat`, `msat`), or `asset` (the asset's display units). */
  amountUnit?: string;
}

type Schema = z.core.$ZodType;

/**
 * A schema's zod 4 definition (`schema._zod.def`), told apart by its `type`: every schema zod
 * builds is one of `$ZodTypes`, so the definition is one of theirs.
 */
type Def = z.core.$ZodTypes['_zod']['def'];

function defOf(schema: Schema): Def {
  return schema._zod.def as Def;
}

/** The description set with `.describe()` (what a classic schema's `description` reads). */
function descriptionOf(schema: Schema): string | undefined {
  return globalRegistry.get(schema)?.description;
}

interface Unwrapped {
  inner: Schema;
  optional: boolean;
  description?: string;
}

/** Peels optional/default/nullable/pipe wrappers and keeps the first description found. */
export function unwrapSchema(schema: Schema): Unwrapped {
  let cur = schema;
  let optional = false;
  let description = descriptionOf(cur);
  for (let i = 0; i < 20; i++) {
    const def = defOf(cur);
    const type = def.type;
    if (type === 'optional' || type === 'default' || type === 'prefault' || type === 'nullable' || type === 'catch') {
      if (type !== 'nullable') optional = true;
      cur = def.innerType;
    } else if (type === 'pipe') {
      cur = def.in;
    } else if (type === 'readonly' || type === 'nonoptional') {
      cur = def.innerType;
    } else if (type === 'lazy') {
      cur = def.getter();
    } else break;
    description ??= descriptionOf(cur);
  }
  return { inner: cur, optional, description };
}

/** `int` is in zod 4's list of definition types, though none of its schemas has it today. */
const NUMBER_TYPES = new Set<string>(['number', 'int', 'bigint']);

function kindOf(inner: Schema, wrapped: Schema | undefined): { kind: ArgKind; choices?: string[] } {
  const def = defOf(inner);
  const type = def.type;
  // A classic enum's `options` are these values.
  if (type === 'enum') return { kind: 'enum', choices: [...(inner as z.core.$ZodEnum)._zod.values].map(String) };
  if (type === 'literal') {
    const values = [...(def.values ?? [])].map(String);
    return { kind: 'enum', choices: values };
  }
  if (NUMBER_TYPES.has(type)) return { kind: 'number' };
  if (type === 'boolean') return { kind: 'boolean' };
  if (type === 'union') {
    const literals = def.options.map(defOf);
    if (literals.every((d) => d.type === 'literal')) {
      return { kind: 'enum', choices: literals.flatMap((d) => [...d.values].map(String)) };
    }
  }
  // z.stringbool() is a pipe from string to boolean.
  const wrappedDef = wrapped && defOf(wrapped);
  if (wrappedDef?.type === 'pipe') {
    if (defOf(wrappedDef.out).type === 'boolean') return { kind: 'boolean' };
  }
  return { kind: 'string' };
}

/** The first pipe under a schema's wrappers (those with an `innerType`), if any. */
function findPipe(schema: Schema): Schema | undefined {
  let cur = schema;
  for (let i = 0; i < 20; i++) {
    const def = defOf(cur);
    if (def.type === 'pipe') return cur;
    if ('innerType' in def && def.innerType) cur = def.innerType;
    else return undefined;
  }
  return undefined;
}

/** The arguments of a schema, in schema order. */
export function argSpecsOf(schema: z.ZodObject<z.ZodRawShape>): ArgSpec[] {
  return Object.entries(schema.shape).map(([name, field]) => {
    const { inner, optional, description } = unwrapSchema(field);
    const { kind, choices } = kindOf(inner, findPipe(field));
    let required = !optional;
    if (required) {
      // Anything that accepts undefined is optional, however it is built.
      try {
        required = !safeParse(field, undefined).success;
      } catch {
        /* keep */
      }
    }
    const tag = (globalRegistry.get(inner) as { amount?: unknown } | undefined)?.amount;
    const amount = !!tag;
    return {
      name,
      description: description ?? '',
      required,
      kind,
      ...(choices ? { choices } : {}),
      ...(amount ? { amount } : {}),
      ...(typeof tag === 'string' ? { amountUnit: tag } : {}),
    };
  });
}
