/**
 * What the demo keeps across restarts, and `npm start -- --fresh` (issue 27, item 9; P33).
 *
 * The nodes are the emulator's: it runs in-process and starts from its seeded nodes each time, so
 * a node made in a demo is gone after a restart. Schedules, grants, limits, watches and the audit
 * trail are the bot's, in its database (DATABASE_PATH), and stay. The banner says so; `--fresh`
 * removes the demo's database first, so everything starts from nothing.
 */
import { existsSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Config } from '../config.js';

/** Where the terminal demo writes its log: beside its database, off the screen the chat uses. */
export function demoLogFile(config: Config): string {
  return join(dirname(config.DATABASE_PATH), 'rln-chatops.log');
}

/** Whether the demo starts on a database left by an earlier run. */
export function demoStateKept(config: Config): boolean {
  return Boolean(config.DATABASE_URL) || existsSync(config.DATABASE_PATH);
}

/**
 * `--fresh`: removes the demo's SQLite database (and its journal files). Refused, with the reason,
 * outside the demo or on PostgreSQL: it never deletes a real bot's data.
 */
export function startFresh(config: Config): string | undefined {
  if (!config.demo) return '--fresh works only in the demo (no SERVICE_URL): it would delete a real bot’s data. Nothing was deleted.';
  if (config.DATABASE_URL) return '--fresh works only on the demo’s own SQLite file; unset DATABASE_URL, or empty that database yourself.';
  for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${config.DATABASE_PATH}${suffix}`, { force: true });
  return undefined;
}
