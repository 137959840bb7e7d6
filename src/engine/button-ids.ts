/**
 * Button ids: a button names a command and its arguments, but only a short stored id travels
 * in the platform's payload. The dispatcher (replies) and the notifier (posted notifications)
 * both give buttons their ids here, so neither needs the other.
 */
import { randomBytes } from 'node:crypto';
import type { AnyDb } from '../store/index.js';
import { createButtonStore } from '../store/index.js';
import { silentLogger, type Logger } from '../log.js';
import { REPLACES_ARG, type ButtonPreparer } from '../vocabulary/index.js';

export interface ButtonIds extends ButtonPreparer {
  /** What a live button names; undefined when it is unknown or expired. */
  lookup(id: string): Promise<{ command: string; args: Record<string, string> } | undefined>;
}

export interface ButtonIdsOptions {
  db: AnyDb;
  now: () => number;
  /** How long a button id is kept. Default 7 days. */
  ttlMs?: number;
  logger?: Logger;
}

export function createButtonIds(opts: ButtonIdsOptions): ButtonIds {
  const store = createButtonStore(opts.db);
  const ttlMs = opts.ttlMs ?? 7 * 24 * 3600_000;
  const logger = opts.logger ?? silentLogger;
  let lastSweep = 0;
  // Expired ids go at most once a minute, with the first buttons stored after it.
  const sweep = async (t: number) => {
    if (t - lastSweep < 60_000) return;
    lastSweep = t;
    try {
      await store.deleteExpired(t);
    } catch (e) {
      logger.warn({ err: e }, 'could not sweep expired buttons');
    }
  };
  return {
    async prepare(message, o = {}) {
      if (!message.buttons?.length) return message;
      const t = opts.now();
      await sweep(t);
      const ttl = o.ttlMs ?? ttlMs;
      const buttons = [];
      for (const b of message.buttons) {
        if (b.id) {
          buttons.push(b);
          continue;
        }
        const id = `b_${randomBytes(12).toString('base64url')}`;
        const args = b.replaces ? { ...b.args, [REPLACES_ARG]: 'true' } : (b.args ?? {});
        await store.insert({ id, command: b.command, argsJson: JSON.stringify(args), createdAt: t, expiresAt: t + ttl });
        buttons.push({ ...b, id });
      }
      return { ...message, buttons };
    },
    async lookup(id) {
      const row = id ? await store.get(id) : undefined;
      if (!row || row.expiresAt < opts.now()) return undefined;
      return { command: row.command, args: JSON.parse(row.argsJson) as Record<string, string> };
    },
  };
}
