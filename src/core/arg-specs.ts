/**
 * What a command's zod schema says about each argument, in plain terms: help text, Discord
 * option registration and string-to-value conversion are derived from it.
 */
import { globalRegistry, type z } from 'zod';
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
}

interface Unwrapped {
  inner: z.ZodType;
  optional: boolean;
  description?: string;
}

/** Peels optional/default/nullable/pipe wrappers and keeps the first description found. */
export function unwrapSchema(schema: z.ZodType): Unwrapped {
  let cur: any = schema;
  let optional = false;
  let description: string | undefined = cur?.description;
  for (let i = 0; i < 20 && cur; i++) {
    const type = cur._zod?.def?.type ?? cur.def?.type;
    if (type === 'optional' || type === 'default' || type === 'prefault' || type === 'nullable' || type === 'catch') {
      if (type !== 'nullable') optional = true;
      cur = cur._zod.def.innerType;
    } else if (type === 'pipe') {
      cur = cur._zod.def.in;
    } else if (type === 'readonly' || type === 'nonoptional') {
      cur = cur._zod.def.innerType;
    } else if (type === 'lazy') {
      cur = cur._zod.def.getter();
    } else break;
    description ??= cur?.description;
  }
  return { inner: cur, optional, description };
}

function kindOf(inner: any, wrapped: any): { kind: ArgKind; choices?: string[] } {
  const type = inner?._zod?.def?.type;
  if (type === 'enum') return { kind: 'enum', choices: (inner.options as unknown[]).map(String) };
  if (type === 'literal') {
    const values = [...(inner._zod.def.values ?? [])].map(String);
    return { kind: 'enum', choices: values };
  }
  if (type === 'number' || type === 'int' || type === 'bigint') return { kind: 'number' };
  if (type === 'boolean') return { kind: 'boolean' };
  if (type === 'union') {
    const opts = inner._zod.def.options as any[];
    if (opts.every((o) => o?._zod?.def?.type === 'literal')) {
      return { kind: 'enum', choices: opts.flatMap((o) => [...o._zod.def.values].map(String)) };
    }
  }
  // z.stringbool() is a pipe from string to boolean.
  const wrappedType = wrapped?._zod?.def?.type;
  if (wrappedType === 'pipe') {
    const out = wrapped._zod.def.out?._zod?.def?.type;
    if (out === 'boolean') return { kind: 'boolean' };
  }
  return { kind: 'string' };
}

function findPipe(schema: any): any {
  let cur = schema;
  for (let i = 0; i < 20 && cur; i++) {
    const type = cur._zod?.def?.type;
    if (type === 'pipe') return cur;
    if (cur._zod?.def?.innerType) cur = cur._zod.def.innerType;
    else return undefined;
  }
  return undefined;
}

/** The arguments of a schema, in schema order. */
export function argSpecsOf(schema: z.ZodObject<z.ZodRawShape>): ArgSpec[] {
  const shape = (schema as any).shape as Record<string, z.ZodType>;
  return Object.entries(shape).map(([name, field]) => {
    const { inner, optional, description } = unwrapSchema(field);
    const { kind, choices } = kindOf(inner, findPipe(field));
    let required = !optional;
    if (required) {
      // Anything that accepts undefined is optional, however it is built.
      try {
        required = !(field as any).safeParse(undefined).success;
      } catch {
        /* keep */
      }
    }
    const amount = !!(globalRegistry.get(inner) as { amount?: unknown } | undefined)?.amount;
    return { name, description: description ?? '', required, kind, ...(choices ? { choices } : {}), ...(amount ? { amount } : {}) };
  });
}
