/**
 * Approval requests: what was asked, by whom, where, until when. Stored (a restart keeps them),
 * claimed once by one UPDATE (two approvers clicking together run the action once). They hold
 * the command's arguments and what the request showed, never a secret.
 */
import { randomBytes } from 'node:crypto';
import type { AnyDb } from '../store/index.js';
import { createApprovalStore, type ApprovalRow } from '../store/index.js';
import { actorKey } from './role-service.js';
import type { Field } from '../vocabulary/index.js';
import type { Actor, Place } from '../vocabulary/index.js';

export interface Approval {
  id: string;
  requester: Actor;
  requesterKey: string;
  place: Place;
  path: string;
  args: Record<string, string>;
  node?: string;
  fields: Field[];
  createdAt: number;
  expiresAt: number;
  state: ApprovalRow['state'];
  decidedBy?: string;
  reason?: string;
}

export interface Approvals {
  create(i: {
    actor: Actor;
    place: Place;
    path: string;
    args: Record<string, string>;
    node?: string;
    fields: Field[];
    ttlMs: number;
  }): Promise<Approval>;
  get(id: string): Promise<Approval | undefined>;
  /** Claims a pending, unexpired request; false when someone (or the clock, or another replica) got there first. */
  decide(id: string, state: 'approved' | 'rejected', by: Actor, reason?: string): Promise<boolean>;
  expire(id: string): Promise<boolean>;
  /** A pending, unexpired request for the same command, node and arguments, if there is one. */
  findPending(i: { path: string; node?: string; args: Record<string, string> }): Promise<Approval | undefined>;
}

/** Arguments in one order, to compare two requests. */
const argsKey = (args: Record<string, string>) => JSON.stringify(Object.entries(args).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)));

function fromRow(r: ApprovalRow): Approval {
  return {
    id: r.id,
    requester: JSON.parse(r.requesterJson) as Actor,
    requesterKey: r.requesterKey,
    place: JSON.parse(r.placeJson) as Place,
    path: r.path,
    args: JSON.parse(r.argsJson) as Record<string, string>,
    ...(r.node ? { node: r.node } : {}),
    fields: JSON.parse(r.summaryJson) as Field[],
    createdAt: r.createdAt,
    expiresAt: r.expiresAt,
    state: r.state,
    ...(r.decidedBy ? { decidedBy: r.decidedBy } : {}),
    ...(r.reason ? { reason: r.reason } : {}),
  };
}

export function createApprovals(o: { db: AnyDb; now: () => number }): Approvals {
  const store = createApprovalStore(o.db);
  return {
    async create(i) {
      const t = o.now();
      const row = {
        id: `a_${randomBytes(9).toString('base64url')}`,
        requesterJson: JSON.stringify(i.actor),
        requesterKey: actorKey(i.actor),
        placeJson: JSON.stringify(i.place),
        path: i.path,
        argsJson: JSON.stringify(i.args),
        node: i.node ?? null,
        summaryJson: JSON.stringify(i.fields),
        createdAt: t,
        expiresAt: t + i.ttlMs,
      };
      await store.insert(row);
      return fromRow({ ...row, state: 'pending', decidedBy: null, decidedAt: null, reason: null });
    },
    async get(id) {
      const r = id ? await store.get(id) : undefined;
      return r ? fromRow(r) : undefined;
    },
    decide: (id, state, by, reason) => store.decide(id, state, actorKey(by), o.now(), reason),
    expire: (id) => store.expire(id, o.now()),
    async findPending(i) {
      const want = argsKey(i.args);
      const same = (await store.pending(o.now()))
        .map(fromRow)
        .find((r) => r.path === i.path && (r.node ?? undefined) === i.node && argsKey(r.args) === want);
      return same;
    },
  };
}
