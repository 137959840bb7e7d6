/**
 * Pending confirmations (Confirm/Cancel buttons) and pending dialogs, kept in the database so
 * that only their id travels in a button or a dialog, and a restart keeps them usable.
 */
import { randomBytes } from 'node:crypto';
import type { ConfirmationRow, Db, DialogRow } from '../store/index.js';
import { createConfirmationStore, createDialogStore } from '../store/index.js';
import { silentLogger, type Logger } from '../log.js';
import type { Actor, Place } from './types.js';
import { actorKey } from './role-service.js';

export interface PendingInput {
  actor: Actor;
  place: Place;
  path: string;
  args: Record<string, string>;
  ttlMs: number;
}

export interface Confirmations {
  /** Stores a button confirmation; returns its id. */
  create(input: PendingInput): string;
  get(id: string): ConfirmationRow | undefined;
  /** Marks it used; false when it was already used (a second click, a race). */
  claim(id: string, at: number, outcome: string): boolean;
  /** Stores an open dialog; returns its id. */
  createDialog(input: PendingInput & { kind: DialogRow['kind'] }): string;
  getDialog(id: string): DialogRow | undefined;
  claimDialog(id: string, at: number): boolean;
}

export function createConfirmations(opts: { db: Db; now: () => number; logger?: Logger }): Confirmations {
  const confirmations = createConfirmationStore(opts.db);
  const dialogs = createDialogStore(opts.db);
  const logger = opts.logger ?? silentLogger;
  let lastSweep = 0;
  const sweep = () => {
    const t = opts.now();
    if (t - lastSweep < 60_000) return;
    lastSweep = t;
    try {
      // Kept a day after expiry, so a late click says "expired", not "unknown".
      confirmations.deleteExpired(t - 24 * 3600_000);
      dialogs.deleteExpired(t - 24 * 3600_000);
    } catch (e) {
      logger.warn({ err: e }, 'could not sweep expired confirmations');
    }
  };
  const rowOf = (prefix: string, bytes: number, i: PendingInput) => {
    sweep();
    const t = opts.now();
    return {
      id: `${prefix}${randomBytes(bytes).toString('base64url')}`,
      requesterJson: JSON.stringify(i.actor),
      requesterKey: actorKey(i.actor),
      placeJson: JSON.stringify(i.place),
      path: i.path,
      argsJson: JSON.stringify(i.args),
      createdAt: t,
      expiresAt: t + i.ttlMs,
    };
  };
  sweep();
  return {
    create(i) {
      const row = rowOf('c_', 9, i);
      confirmations.insert(row);
      return row.id;
    },
    get: (id) => (id ? confirmations.get(id) : undefined),
    claim: (id, at, outcome) => confirmations.claim(id, at, outcome),
    createDialog(i) {
      const row = rowOf('d_', 12, i);
      dialogs.insert({ ...row, kind: i.kind });
      return row.id;
    },
    getDialog: (id) => (id ? dialogs.get(id) : undefined),
    claimDialog: (id, at) => dialogs.claim(id, at),
  };
}
