/**
 * Bolt's Logger interface over our pino logger. Bolt and the socket-mode client log whole
 * payloads at debug level (a modal's typed values, a command's text), before our code has seen
 * them: every line is scrubbed of input values and `key=value` secrets first.
 */
import type { Logger as BoltLogger, LogLevel } from '@slack/bolt';
import type { Logger } from '../../log.js';

const SCRUBBERS: Array<[RegExp, string]> = [
  // Input values of a view's state, and a slash command's text (may hold a refused inline secret).
  [/("(?:value|text)"\s*:\s*)"(?:[^"\\]|\\.)*"/g, '$1"[redacted]"'],
  [/(\\"(?:value|text)\\"\s*:\s*\\")(.*?)(\\")/g, '$1[redacted]$3'],
  [/\b(password|passphrase|mnemonic|secret|token|old_password|new_password)=("[^"]*"|\S+)/gi, '$1=[redacted]'],
  [/([?&](?:text|payload)=)[^&\s]*/g, '$1[redacted]'],
];

/** Removes typed values and inline secrets from a log line produced by Bolt or its clients. */
export function scrubBoltLog(line: string): string {
  let out = line;
  for (const [re, to] of SCRUBBERS) out = out.replace(re, to);
  return out;
}

export function toBoltLogger(log: Logger): BoltLogger {
  let level = 'info' as LogLevel;
  const text = (args: unknown[]) =>
    scrubBoltLog(args.map((a) => (typeof a === 'string' ? a : a instanceof Error ? a.message : safeJson(a))).join(' '));
  return {
    debug: (...a: unknown[]) => {
      if (log.isLevelEnabled('debug')) log.debug(text(a));
    },
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

function safeJson(v: unknown): string {
  try {
    return JSON.stringify(v);
  } catch {
    return String(v);
  }
}
