/**
 * Which commands may be put under approval: a command that exists, changes something, and whose
 * dialog takes no secret it needs to run (init, unlock, password, restore): secrets are used at
 * once and never kept for an approver. A threshold needs a command that moves funds.
 */
import { UserError } from '../vocabulary/index.js';
import type { Registry } from './types.js';
import type { UnitAmount } from '../vocabulary/index.js';

export function approvalActionChecker(registry: Registry): (action: string, over?: UnitAmount) => void {
  return (action, over) => {
    const path = action.replace(/\./g, ' ');
    const def = registry.get(path);
    if (!def) {
      const near = registry.closest(path);
      throw new UserError(
        'invalid_arguments',
        `There is no command ${action} to put under approval.`,
        near ? `Did you mean ${near.replace(/ /g, '.')}?` : 'Name a command with dots, e.g. pay.send.',
      );
    }
    if (!def.mutates) throw new UserError('invalid_arguments', `${action} changes nothing, so it needs no approval.`);
    if (def.secrets?.some((f) => f.kind === 'secret' && f.required !== false)) {
      throw new UserError(
        'invalid_arguments',
        `${action} cannot be put under approval: its dialog takes a secret, and secrets are used at once, never kept for an approver.`,
        'Limit who may run it with roles instead (`/rln access grant … admin nodes=…`).',
      );
    }
    if (over && !def.spend)
      throw new UserError(
        'invalid_arguments',
        `${action} moves no funds, so it takes no threshold.`,
        `Write ${action} alone to always ask a second person.`,
      );
  };
}
