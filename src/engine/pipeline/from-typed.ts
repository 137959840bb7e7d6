/** Entry point: a typed command (Slack and shell text, or Discord's path and options). */
import { UserError } from '../../vocabulary/index.js';
import { parseCommandLine } from '../parse-command-line.js';
import type { Invocation, Reply } from '../types.js';
import { newAttempt, type Pipeline } from './attempt.js';
import { failAttempt } from './record-outcome.js';
import { runSteps } from './run-steps.js';

export async function fromTyped(inv: Extract<Invocation, { via: 'typed' }>, p: Pipeline): Promise<Reply> {
  const a = newAttempt(inv, 'typed', p);
  try {
    let path: string;
    let args: Record<string, string>;
    if (inv.path) {
      path = inv.path.trim().replace(/\s+/g, ' ').toLowerCase();
      args = { ...(inv.args ?? {}) };
      if (!p.registry.get(path)) {
        const near = p.registry.closest(path);
        throw new UserError(
          'unknown_command',
          `There is no command ${/^[a-z -]{1,40}$/.test(path) ? `\`${path}\`` : 'like that'}.`,
          near ? `Did you mean \`/rln ${near}\`? Type \`/rln help\` for every command.` : 'Type `/rln help` for every command.',
        );
      }
    } else {
      ({ path, args } = parseCommandLine(inv.text ?? '', p.registry));
    }
    a.def = p.registry.get(path);
    a.args = args;
  } catch (e) {
    // A refused inline secret is still a refused change: audit it, without the values.
    if (e instanceof UserError && e.code === 'secret_inline' && typeof e.context.path === 'string') {
      a.def = p.registry.get(e.context.path);
      a.args = (e.context.args as Record<string, string>) ?? {};
    }
    return await failAttempt(p, a, e);
  }
  return runSteps(a, p);
}
