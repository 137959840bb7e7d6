/**
 * Step 4: the role the command needs, where it acts (a scoped grant counts only on its nodes and
 * channels). It comes before any dialog: a user without the role never sees one. For an approved
 * request it is the approver who needs the role and a scope covering the node.
 */
import { UserError } from '../../../vocabulary/index.js';
import { actorKey, ROLE_RANK, scopeCovers, scopeText, type Where } from '../../../access/index.js';
import type { AnyCommand } from '../../types.js';
import type { Actor, Role } from '../../../vocabulary/index.js';
import type { Attempt, Pipeline, Step } from '../attempt.js';
import { commandOf, roleFor, typedNode, whoOf } from '../attempt.js';

export const requireRole: Step = async (a, p) => {
  const def = commandOf(a);
  const need = roleFor(p, def);
  const who = a.approval?.approver ?? a.actor;
  const where = await whereOf(a, p, who);
  if (!(await p.services.access.has(who, need, where))) return forbidden(p, who, def, need, where, a.approval ? 'approve' : 'run');
  // An approved request runs in the requester's name: their role and scope are checked again now
  // (a revoked operator's pending request does not run).
  if (a.approval) {
    const theirs = await whereOf(a, p, a.actor);
    if (!(await p.services.access.has(a.actor, need, theirs))) {
      const have = await p.services.access.roleOf(a.actor, theirs);
      const nodeName = typeof theirs.node === 'string' ? theirs.node : theirs.node?.name;
      // Closed, so that it cannot run later either.
      await p.services.policy.approvals.decide(
        a.approval.id,
        'rejected',
        a.approval.approver,
        `the requester no longer has the ${need} role`,
      );
      return new UserError(
        'forbidden',
        `${whoOf(a.actor)} (${actorKey(a.actor)}), who asked for \`${def.path}\`, no longer has the ${need} role${nodeName ? ` on ${nodeName}` : ''} (now: ${have}): the request cannot run.`,
        'Nothing was done. If it is still needed, someone with the role can run it.',
        { needed: need, have },
      );
    }
  }
  return undefined;
};

/** The node and channel of the attempt. A node not resolved yet is resolved only when a scope needs it. */
async function whereOf(a: Attempt, p: Pipeline, who: Actor): Promise<Where> {
  const channelId = a.place.channelId;
  if (a.node) return { node: a.node, channelId };
  const typed = typedNode(p, a);
  if (!typed) return { channelId };
  if ((await p.services.access.scopesOf(who)).some((s) => s.scope.nodes?.length)) {
    try {
      return { node: await p.nodes.resolve(typed), channelId };
    } catch {
      /* an unknown node: the name as typed (the command's own step reports it) */
    }
  }
  return { node: typed, channelId };
}

/** How many admins a refusal names before `and N more`. */
const MAX_ADMINS_SHOWN = 8;

async function forbidden(
  p: Pipeline,
  actor: Actor,
  def: AnyCommand,
  need: Role,
  where: Where,
  verb: 'run' | 'approve',
): Promise<UserError> {
  const key = actorKey(actor);
  const have = await p.services.access.roleOf(actor, where);
  const nodeName = typeof where.node === 'string' ? where.node : where.node?.name;
  const scoped = (await p.services.access.scopesOf(actor)).find(
    (s) => ROLE_RANK[s.role] >= ROLE_RANK[need] && !scopeCovers(s.scope, where),
  );
  if (scoped) {
    const here = nodeName ? `on ${nodeName}` : 'here';
    return new UserError(
      'forbidden',
      `\`${def.path}\` ${here} needs the ${need} role; your ${scoped.role} role (${key}) is limited to ${scopeText(scoped.scope)}.`,
      `An admin can widen it with \`/rln access grant ${key} ${scoped.role}${nodeName && scoped.scope.nodes ? ` nodes=${[...scoped.scope.nodes, nodeName].join(',')}` : ''}\`.`,
      { needed: need, have, scope: scopeText(scoped.scope) },
    );
  }
  // Every admin who can act here: ADMIN_USERS, grants, and the terminal's built-in one when asked
  // from the terminal (P36); elsewhere `shell:local` is no one a chat user can ask.
  const admins = [
    ...new Set(
      (await p.services.access.list())
        .filter((r) => r.role === 'admin' && !r.scope && (r.principal !== 'shell:local' || actor.platform === 'shell'))
        .map((r) => r.principal),
    ),
  ];
  const shown =
    admins.length > MAX_ADMINS_SHOWN
      ? `${admins.slice(0, MAX_ADMINS_SHOWN).join(', ')} and ${admins.length - MAX_ADMINS_SHOWN} more (\`/rln access list\`)`
      : admins.join(', ');
  const doing = verb === 'approve' ? `Approving \`${def.path}\`` : `\`${def.path}\``;
  return new UserError(
    'forbidden',
    `${doing} needs the ${need} role; you (${key}) have ${have}.`,
    `An admin can grant it with \`/rln access grant ${key} ${need}\`.${admins.length ? ` Admins: ${shown}.` : ''}`,
    { needed: need, have },
  );
}
