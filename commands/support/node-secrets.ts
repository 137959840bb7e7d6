/** The node password field of the lifecycle dialogs, and reading a secret the dialog must have given. */
import { UserError } from '../../src/vocabulary/index.js';
import type { CommandContext } from '../define-command.js';

export const passwordField = { name: 'password', label: 'Node password', kind: 'secret' as const, required: true };

export function needSecret(ctx: CommandContext<unknown>, name: string, what: string): string {
  const v = ctx.secrets[name];
  if (!v) throw new UserError('invalid_arguments', `The ${what} was not entered.`, 'Run the command again and fill in the private dialog.');
  return v;
}
