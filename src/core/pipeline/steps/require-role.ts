/** Step 4: the role the command needs. It comes before any dialog: a user without the role never sees one. */
import { UserError } from '../../errors.js';
import { actorKey } from '../../role-service.js';
import type { AnyCommand } from '../../registry.js';
import type { Actor } from '../../types.js';
import type { Pipeline, Step } from '../attempt.js';
import { commandOf } from '../attempt.js';

export const requireRole: Step = (a, p) => {
  const def = commandOf(a);
  return p.services.access.has(a.actor, def.role) ? undefined : forbidden(p, a.actor, def);
};

function forbidden(p: Pipeline, actor: Actor, def: AnyCommand): UserError {
  const have = p.services.access.roleOf(actor);
  const admins = p.services.access
    .list()
    .filter((r) => r.role === 'admin' && r.principal !== 'shell:local')
    .map((r) => r.principal)
    .slice(0, 5);
  return new UserError(
    'forbidden',
    `\`${def.path}\` needs the ${def.role} role; you (${actorKey(actor)}) have ${have}.`,
    `An admin can grant it with \`/rln access grant ${actorKey(actor)} ${def.role}\`.${admins.length ? ` Admins: ${admins.join(', ')}.` : ''}`,
    { needed: def.role, have },
  );
}
