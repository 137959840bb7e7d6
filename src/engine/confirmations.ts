/**
 * Pending confirmations (Confirm/Cancel buttons) and pending dialogs, kept in the database so
 * that only their id travels in a button or a dialog, and a restart keeps them usable.
 */
import { randomBytes } from 'node:crypto';
import type { AnyDb, ConfirmationRow, DialogRow } from '../store/index.js';
import { createConfirmationStore, createDialogStore } from '../store/index.js';
import { silentLogger, type Logger } from '../log.js';
import type { Actor, Place } from '../vocabulary/index.js';
import { actorKey } from '../access/index.js';

export interface PendingInput {
  actor: Actor;
  place: Place;
  path: string;
  args: Record<string, string>;
  ttlMs: number;
}

export interface Confirmations {
  /** Stores a button confirmation; returns its id. */
  create(input: PendingInput): Promise<string>;
  get(id: string): Promise<ConfirmationRow | undefined>;
  /** Marks it used; false when it was already used (a second click, a race, another replica). */
  claim(id: string, at: number, outcome: string): Promise<boolean>;
  /** Stores an open dialog; returns its id. */
  createDialog(input: PendingInput & { kind: DialogRow['kind'] }): Promise<string>;
  getDialog(id: string): Promise<DialogRow | undefined>;
  claimDialog(id: string, at: number): Promise<boolean>;
}

export function createConfirmations(opts: { db: AnyDb; now: () => number; logger?: Logger }): Confirmations {
  const confirmations = createConfirmationStore(opts.db);
  const dialogs = createDialogStore(opts.db);
  const logger = opts.logger ?? silentLogger;
  let lastSweep = 0;
  // At most once a minute, with the first confirmation or dialog stored after it.
  const sweep = async () => {
    const t = opts.now();
    if (t - lastSweep < 60_000) return;
    lastSweep = t;
    try {
      // Kept a day after expiry, so a late click says "expired", not "unknown".
      await confirmations.deleteExpired(t - 24 * 3600_000);
      await dialogs.deleteExpired(t - 24 * 3600_000);
    } catch (e) {
      logger.warn({ err: e }, 'could not sweep expired confirmations');
    }
  };
  const rowOf = async (prefix: string, bytes: number, i: PendingInput) => {
    await sweep();
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
  return {
    async create(i) {
      const row = await rowOf('c_', 9, i);
      await confirmations.insert(row);
      return row.id;
    },
    get: async (id) => (id ? confirmations.get(id) : undefined),
    claim: (id, at, outcome) => confirmations.claim(id, at, outcome),
    async createDialog(i) {
      const row = await rowOf('d_', 12, i);
      await dialogs.insert({ ...row, kind: i.kind });
      return row.id;
    },
    getDialog: async (id) => (id ? dialogs.get(id) : undefined),
    claimDialog: (id, at) => dialogs.claim(id, at),
  };
}
