/**
 * Step 2: the arguments against the command's schema. Values arrive as strings; the schema
 * converts them itself (`z.coerce.number()`, `z.stringbool()`), so nothing here reads zod's insides.
 */
import { UserError } from '../../../vocabulary/index.js';
import type { AnyCommand, Registry } from '../../types.js';
import { exampleOf, usageOf } from '../../render-help.js';
import type { Platform } from '../../../vocabulary/index.js';
import { commandOf, type Step } from '../attempt.js';

export const validateArgs: Step = (a, p) => {
  a.parsed = validate(p.registry, commandOf(a), a.args, a.place.platform);
  return undefined;
};

/** The parsed arguments, or a UserError naming the argument that is wrong and showing the usage. */
export function validate(registry: Registry, def: AnyCommand, raw: Record<string, string>, platform?: Platform): Record<string, unknown> {
  const specs = registry.argSpecs(def);
  // Only a refusal shows it: not built for every valid command.
  const usage = () => `Usage: ${usageOf(registry, def, { platform })}. Example: ${exampleOf(registry, def, platform)}`;
  const input: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(raw)) {
    const spec = specs.find((s) => s.name === k);
    if (!spec) {
      const names = specs.map((s) => s.name);
      const shown = /^[A-Za-z_][\w-]{0,40}$/.test(k) ? `\`${k}\`` : 'that argument';
      throw new UserError(
        'invalid_arguments',
        `\`${def.path}\` has no argument ${shown}${names.length ? `; it takes ${names.join(', ')}` : '; it takes none'}.`,
        usage(),
      );
    }
    if (v === '' && !spec.required) continue;
    input[k] = v;
  }
  const r = def.args.safeParse(input);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  const name = String(issue?.path?.[0] ?? '');
  const spec = specs.find((s) => s.name === name);
  if (name && input[name] === undefined) {
    throw new UserError(
      'invalid_arguments',
      `\`${def.path}\` needs \`${name}\`${spec?.description ? ` (${spec.description})` : ''}.`,
      usage(),
    );
  }
  // The choices once: zod's message may name them already ("expected one of ok, failed, refused").
  const choices = spec?.choices && !/\bone of\b/.test(issue.message) ? ` It must be one of: ${spec.choices.join(', ')}.` : '';
  throw new UserError(
    'invalid_arguments',
    name
      ? `Argument \`${name}\` is not valid: ${issue.message}.${choices}`
      : `The arguments are not valid: ${issue?.message ?? 'unknown problem'}.`,
    usage(),
  );
}
