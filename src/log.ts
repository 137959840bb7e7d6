/**
 * Structured JSON-lines logging (pino) with secrets redacted by the one redactor (src/redact.ts)
 * twice over: by key
 * (token, password, mnemonic, secret, authorization…, at any depth) and by value (any
 * registered secret string, and token-shaped strings, are replaced wherever they appear,
 * in the message and in every string of the logged object, errors included). Fields in
 * which HTTP libraries keep the request they sent (axios `config`, got `options`,
 * discord.js `requestBody`, …: headers with the bot token, bodies with a mnemonic) are
 * left out of the log altogether.
 */
import { pino, type Logger } from 'pino';
import { redact, redactValue } from './redact.js';

const SECRET_KEYS = [
  'token',
  'apiToken',
  'password',
  'old_password',
  'new_password',
  'mnemonic',
  'secret',
  'signingSecret',
  'authorization',
  'Authorization',
  'backup_password',
  'signature',
];

const redactPaths = [
  ...SECRET_KEYS,
  ...SECRET_KEYS.map((k) => `*.${k}`),
  ...SECRET_KEYS.map((k) => `*.*.${k}`),
  'headers.authorization',
  'req.headers.authorization',
];

export {
  redact,
  registerSecret,
  registerTypedSecret,
  typedSecretCount,
  TYPED_SECRET_TTL_MS,
  MAX_TYPED_SECRETS,
  type TypedSecretSource,
} from './redact.js';

/** Masks secrets in free text: the one redactor (src/redact.ts), under the name its callers know. */
export const redactText = redact;
/** Masks secrets in text that is not ours, such as a node's own log lines: the one redactor too. */
export const redactLogText = redact;
/** A copy of a logged value that holds no secret (src/redact.ts, redactValue). */
export const sanitizeForLog = (value: unknown): unknown => redactValue(value);

/** The stderr destinations the loggers write to, so that exit can stop them blocking it. */
const stderrDestinations = new Set<ReturnType<typeof pino.destination>>();

/**
 * Makes the process safe to exit whatever the state of stderr: flushes what the loggers hold
 * (waiting at most `timeoutMs`), then turns their flush-on-exit into a no-op. pino flushes an
 * async destination synchronously on exit, and sonic-boom's flushSync retries forever when the
 * write fails (EPIPE with no reader, EAGAIN with a full pipe), so `process.exit` would never return.
 */
export async function releaseLogsForExit(timeoutMs = 1_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  // sonic-boom writes one chunk at a time and queues the rest; it has no public "all written"
  // promise (flush(cb) answers at once with minLength 0), so read its queue length.
  const busy = () =>
    [...stderrDestinations].some((d) => {
      const q = d as unknown as { _writing?: boolean; _len?: number };
      return Boolean(q._writing) || (q._len ?? 0) > 0;
    });
  while (busy() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  abandonLogsForExit();
}

/** The synchronous part of releaseLogsForExit: whatever is still buffered is dropped at exit. */
export function abandonLogsForExit(): void {
  for (const d of stderrDestinations) d.flushSync = () => undefined;
}

function stderrDestination(): ReturnType<typeof pino.destination> {
  const d = pino.destination(2);
  // A write error on stderr (no reader) must not become an uncaught exception.
  d.on('error', () => undefined);
  stderrDestinations.add(d);
  return d;
}

/**
 * The bot's logger: JSON lines on stderr, or (`file`) appended to that file, its folder made if
 * missing (the terminal demo, whose screen is the chat).
 */
export function createLogger(opts: { level?: string; destination?: NodeJS.WritableStream; file?: string } = {}): Logger {
  return pino(
    {
      level: opts.level ?? process.env.LOG_LEVEL ?? 'info',
      base: { app: 'rln-chatops' },
      redact: { paths: redactPaths, censor: '[redacted]' },
      hooks: {
        logMethod(args, method) {
          const masked = args.map((a) => sanitizeForLog(a));
          return method.apply(this, masked as Parameters<typeof method>);
        },
      },
      formatters: {
        level: (label) => ({ level: label }),
      },
      serializers: {
        err: (e: unknown) => sanitizeForLog(e) as ReturnType<typeof pino.stdSerializers.err>,
      },
    },
    (opts.destination as pino.DestinationStream | undefined) ??
      (opts.file ? pino.destination({ dest: opts.file, mkdir: true, sync: true }) : stderrDestination()),
  );
}

export type { Logger };

/** A logger that writes nothing, for tests and libraries that were given none. */
export const silentLogger: Logger = pino({ level: 'silent' });
