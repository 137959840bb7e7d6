/** Bolt's Logger interface over our pino logger (Bolt's own levels are ignored: pino's level rules). */
import type { Logger as BoltLogger, LogLevel } from '@slack/bolt';
import type { Logger } from '../../log.js';

export function toBoltLogger(log: Logger): BoltLogger {
  let level = 'info' as LogLevel;
  const text = (args: unknown[]) => args.map((a) => (typeof a === 'string' ? a : a instanceof Error ? a.message : JSON.stringify(a))).join(' ');
  return {
    debug: (...a: unknown[]) => log.debug(text(a)),
    info: (...a: unknown[]) => log.info(text(a)),
    warn: (...a: unknown[]) => log.warn(text(a)),
    error: (...a: unknown[]) => log.error(text(a)),
    setLevel: (l: LogLevel) => {
      level = l;
    },
    getLevel: () => level,
    setName: () => undefined,
  };
}
