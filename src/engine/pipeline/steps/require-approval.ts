/**
 * Step 9: approval by a second person. When the policy (APPROVAL_POLICY, `policy set approval`)
 * puts the attempt under approval, the requester's confirmation becomes a request posted to the
 * channel (what, how much, to whom, who asked, when it expires) with Approve and Reject, and the
 * attempt ends here. An Approve click comes back through every step as the requester's attempt
 * (`a.approval`), and here claims the request, once: of two clicks together, one runs it.
 */
import { UserError } from '../../../vocabulary/index.js';
import { msg, type Field } from '../../../vocabulary/index.js';
import { redactArgs } from '../../inline-secret.js';
import { statusBadge } from '../../../vocabulary/index.js';
import { actorKey } from '../../../access/index.js';
import type { DialogField, Reply } from '../../types.js';
import { commandOf, contextOf, laterFields, opensDialog, roleFor, whoOf, type Attempt, type Pipeline, type Step } from '../attempt.js';
import { commandLine, ttlText } from '../command-line.js';
import { recordOutcome } from '../record-outcome.js';

/** Internal button commands (not in the user registry). Args: `{ id: <approval id> }`. */
export const APPROVE_COMMAND = '__approve';
export const REJECT_COMMAND = '__approval_reject';

/** Internal button command: the requester goes on with an approved request (`{ id: <continuation>, approval }`). */
export const CONTINUE_COMMAND = '__approval_continue';

export const requireApproval: Step = async (a, p) => {
  const def = commandOf(a);
  if (a.continuation) return claimContinuation(a, p);
  if (a.approval) {
    if (!(await p.services.policy.approvals.decide(a.approval.id, 'approved', a.approval.approver))) {
      const now = await p.services.policy.approvals.get(a.approval.id);
      return new UserError(
        'approval_used',
        `This request was already ${now?.state ?? 'closed'}${now?.decidedBy ? ` by ${now.decidedBy}` : ''}; it runs once.`,
        'Nothing more to do.',
      );
    }
    // The approval itself, under the approver's name (the command's own record names both).
    await p.services.audit.record({
      actor: a.approval.approver,
      place: a.place,
      path: 'approval approve',
      node: a.node?.name,
      nodeId: a.node?.nodeId,
      args: { action: def.path.replace(/\s+/g, '.'), approval: a.approval.id, requested_by: actorKey(a.actor) },
      outcome: 'ok',
    });
    const later = laterFields(def, a.args);
    return later.length ? askRequester(a, p, later) : undefined;
  }
  if (opensDialog(a)) return undefined;
  if (def.approvalCovers && !def.approvalCovers(a.parsed ?? {})) return undefined;
  const rule = await p.services.policy.approvalNeeded(def.path, a.spend);
  return rule ? askApproval(a, p, rule) : undefined;
};

/**
 * The same request (command, node, arguments) already waiting for a second person: refused, so
 * that one approval cannot run it twice (P44). Checked before the confirmation and again here.
 */
export async function alreadyPending(a: Attempt, p: Pipeline): Promise<UserError | undefined> {
  const def = commandOf(a);
  const same = await p.services.policy.approvals.findPending({ path: def.path, node: a.node?.name, args: redactArgs(def, a.args) });
  if (!same) return undefined;
  const expires = new Date(same.expiresAt).toISOString().slice(0, 16).replace('T', ' ');
  return new UserError(
    'conflict',
    `The same request is already waiting for a second person: ${same.id}, asked by ${whoOf(same.requester)} (expires ${expires} UTC).`,
    'Have someone approve or reject that one; nothing new was asked.',
  );
}

async function askApproval(a: Attempt, p: Pipeline, rule: string): Promise<Reply | UserError> {
  const def = commandOf(a);
  const policy = p.services.policy;
  const pending = await alreadyPending(a, p);
  if (pending) return pending;
  const ctx = contextOf(a, p);
  // Nothing is done before the approval, and no secret is kept for it: the request shows what is
  // read now (the funds of a node still as it was), and a field asked after approval says so.
  a.secrets = {};
  const shown = def.preview ? await def.preview(ctx) : spendFields(a);
  const later = laterFields(def, a.args);
  const before: Field[] = later.length
    ? [
        {
          label: 'Once approved',
          value: `${whoOf(a.actor)} enters the ${later.map((f) => f.label.toLowerCase()).join(', ')} in a private dialog, and it runs then. Nothing is done before.`,
        },
      ]
    : [];
  const args = redactArgs(def, a.args);
  const fields: Field[] = [{ label: 'Command', value: commandLine(p.registry, def, args) }];
  if (a.node) fields.push({ label: 'Node', value: `${a.node.name} (${statusBadge(String(a.node.status))})` });
  fields.push(...shown, ...before);
  const approval = await policy.approvals.create({
    actor: a.actor,
    place: a.place,
    path: def.path,
    args,
    node: a.node?.name,
    fields,
    ttlMs: policy.approvalTtlMs,
  });
  const expires = new Date(approval.expiresAt).toISOString().slice(0, 16).replace('T', ' ');
  fields.push({ label: 'Requested by', value: `${whoOf(a.actor)} (${actorKey(a.actor)})`, inline: true });
  fields.push({ label: 'Expires', value: `${expires} UTC (in ${ttlText(policy.approvalTtlMs)})`, inline: true });
  await p.services.audit.record({
    actor: a.actor,
    place: a.place,
    path: 'approval request',
    node: a.node?.name,
    nodeId: a.node?.nodeId,
    args: { action: def.path.replace(/\s+/g, '.'), approval: approval.id, ...args },
    outcome: 'ok',
    reason: rule,
  });
  await recordOutcome(p, a, 'approval_requested', { log: { approval: approval.id } });
  const message = await p.buttons.prepare(
    {
      header: `Approval needed: ${def.path}${a.node ? ` ${a.node.name}` : ''}`,
      tone: 'warning',
      blocks: [
        msg.text(
          `${whoOf(a.actor)} asks to run this. ${rule[0].toUpperCase()}${rule.slice(1)}: nothing happens until someone approves it.`,
        ),
        msg.fields(fields),
        msg.context(
          `Anyone but ${whoOf(a.actor)} with the ${roleFor(p, def)} role${a.node ? ` on ${a.node.name}` : ''} can approve; the first approval runs it. Request ${approval.id}.`,
        ),
      ],
      buttons: [
        { label: 'Approve', style: 'primary', command: APPROVE_COMMAND, args: { id: approval.id } },
        { label: 'Reject', style: 'danger', command: REJECT_COMMAND, args: { id: approval.id } },
      ],
      summary: `Approval needed: ${def.path}${a.node ? ` ${a.node.name}` : ''} (requested by ${whoOf(a.actor)})`,
    },
    { ttlMs: policy.approvalTtlMs + 24 * 3600_000 },
  );
  return { kind: 'message', message, visibility: 'channel', ...(a.replaceOriginal ? { replaceOriginal: true } : {}) };
}

/**
 * Approved, but the command needs secrets of its requester first (fields `afterApproval`, never
 * kept while the request waited): the request becomes a button only the requester can use, once,
 * within the approval's time, that opens a private dialog for them and then runs the command.
 */
async function askRequester(a: Attempt, p: Pipeline, later: DialogField[]): Promise<Reply> {
  const def = commandOf(a);
  const approval = a.approval!;
  const ttlMs = p.services.policy.approvalTtlMs;
  const id = await p.confirmations.create({ actor: a.actor, place: a.place, path: def.path, args: a.args, ttlMs });
  const req = await p.services.policy.approvals.get(approval.id);
  const what = later.map((f) => f.label.toLowerCase()).join(', ');
  await recordOutcome(p, a, 'approved_waiting', { log: { approval: approval.id } });
  const message = await p.buttons.prepare(
    {
      header: `Approved: ${def.path}${a.node ? ` ${a.node.name}` : ''}, waiting for ${whoOf(a.actor)}`,
      tone: 'info',
      blocks: [
        msg.text(
          `Approved by ${whoOf(approval.approver)} (${actorKey(approval.approver)}). Nothing was done yet: ${whoOf(a.actor)} now enters the ${what} in a private dialog, and it runs then.`,
        ),
        ...(req?.fields.length ? [msg.fields(req.fields)] : []),
        msg.context(`Only ${whoOf(a.actor)} (${actorKey(a.actor)}) can go on, once, within ${ttlText(ttlMs)}. Request ${approval.id}.`),
      ],
      buttons: [
        {
          label: `Enter the ${later[0].label.replace(/\s*\(.*\)$/, '').toLowerCase()}`,
          style: 'primary',
          command: CONTINUE_COMMAND,
          args: { id, approval: approval.id, approved_by: actorKey(approval.approver) },
        },
      ],
      summary: `Approved: ${def.path}${a.node ? ` ${a.node.name}` : ''}; waiting for ${whoOf(a.actor)}`,
    },
    { ttlMs: ttlMs + 24 * 3600_000 },
  );
  return { kind: 'message', message, visibility: 'channel', ...(a.replaceOriginal ? { replaceOriginal: true } : {}) };
}

/** The requester's dialog after an approval was submitted: the continuation runs once, for a request still approved. */
async function claimContinuation(a: Attempt, p: Pipeline): Promise<UserError | undefined> {
  const cont = a.continuation!;
  const req = await p.services.policy.approvals.get(cont.approval);
  if (req?.state !== 'approved' || req.path !== commandOf(a).path) {
    return new UserError('approval_used', `This request is ${req?.state ?? 'no longer known'}: it cannot run.`, 'Nothing was done.');
  }
  const row = await p.confirmations.get(cont.id);
  if (row && p.now() > row.expiresAt) {
    return new UserError(
      'approval_expired',
      'This approved request waited too long and expired; nothing was done.',
      'Run the command again.',
    );
  }
  if (!(await p.confirmations.claim(cont.id, p.now(), 'continued'))) {
    return new UserError('approval_used', 'This approved request already ran; it runs once.', 'Nothing more to do.');
  }
  return undefined;
}

/** What a command without a preview spends, as the request shows it. */
function spendFields(a: Attempt): Field[] {
  const s = a.spend;
  if (!s) return [];
  const out: Field[] = [];
  if (s.msat > 0)
    out.push({ label: 'Amount', value: `${(s.msat / 1000).toLocaleString('en-US', { maximumFractionDigits: 3 })} sats`, inline: true });
  if (s.asset)
    out.push({
      label: 'Asset',
      value: `${s.asset.amount.toLocaleString('en-US', { maximumFractionDigits: 8 })} ${s.asset.ticker}`,
      inline: true,
    });
  if (s.to) out.push({ label: 'To', value: [{ code: s.to }], inline: true });
  return out;
}
