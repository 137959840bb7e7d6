/**
 * Structured JSON-lines logging (pino) with secrets redacted twice over: by key
 * (token, password, mnemonic, secret, authorization…, at any depth) and by value (any
 * registered secret string, and token-shaped strings, are replaced wherever they appear,
 * in the message and in every string of the logged object, errors included). Fields in
 * which HTTP libraries keep the request they sent (axios `config`, got `options`,
 * discord.js `requestBody`, …: headers with the bot token, bodies with a mnemonic) are
 * left out of the log altogether.
 */
import { pino, type Logger } from 'pino';

const SECRET_KEYS = [
  'token', 'apiToken', 'password', 'old_password', 'new_password', 'mnemonic', 'secret',
  'signingSecret', 'authorization', 'Authorization', 'backup_password', 'signature',
];

const redactPaths = [
  ...SECRET_KEYS,
  ...SECRET_KEYS.map((k) => `*.${k}`),
  ...SECRET_KEYS.map((k) => `*.*.${k}`),
  'headers.authorization',
  'req.headers.authorization',
];

/** A key whose value is a secret, at any depth of a logged object. */
const SECRET_KEY_RE = /^(authorization|proxy-authorization|cookie|set-cookie)$|password|passphrase|mnemonic|token|secret|signature|api[_-]?key|private[_-]?key|credential/i;
/** Keys under which HTTP clients keep the request they made (headers, body): never logged. */
const REQUEST_KEYS = new Set(['config', 'request', 'options', 'requestBody', 'body', 'rawBody']);
const MAX_DEPTH = 8;

/** Secrets for the life of the process (configured tokens). */
const knownSecrets = new Set<string>();
/**
 * Secrets typed by users (a password in a dialog, a mnemonic a node answered, a refused inline
 * value): kept for a while, and only so many, because anyone may type into `/rln` and these
 * lists are consulted on every log line. Insertion order is age order (a re-registered value
 * moves to the end). Values refused inline (which anyone can send, before any role check) are
 * held apart, so a flood of them cannot push out a password or a mnemonic.
 */
type Pool = Map<string, number>;
const typedSecrets = { entered: new Map() as Pool, refused: new Map() as Pool };
export type TypedSecretSource = keyof typeof typedSecrets;
export const TYPED_SECRET_TTL_MS = 30 * 60_000;
export const MAX_TYPED_SECRETS = 200;
const MAX_TYPED_SECRET_LENGTH = 4096;

/** Registers a secret value (a configured token) so it is masked anywhere, for good. */
export function registerSecret(value: string | undefined): void {
  if (value && value.length >= 6) knownSecrets.add(value);
}

/**
 * Registers a secret a user typed or a node answered, masked anywhere for TYPED_SECRET_TTL_MS.
 * At most MAX_TYPED_SECRETS per source are kept (the oldest go first), so a stream of commands
 * cannot grow the list or slow every log line down. `refused`: a value refused in a command line.
 */
export function registerTypedSecret(value: string | undefined, now = Date.now(), source: TypedSecretSource = 'entered'): void {
  if (!value || value.length < 6 || value.length > MAX_TYPED_SECRET_LENGTH || knownSecrets.has(value)) return;
  const pool = typedSecrets[source];
  pool.delete(value);
  pool.set(value, now + TYPED_SECRET_TTL_MS);
  while (pool.size > MAX_TYPED_SECRETS) pool.delete(pool.keys().next().value!);
}

/** How many typed secrets are held (for tests). */
export function typedSecretCount(now = Date.now(), source?: TypedSecretSource): number {
  dropExpired(now);
  return source ? typedSecrets[source].size : typedSecrets.entered.size + typedSecrets.refused.size;
}

function dropExpired(now: number): void {
  for (const pool of [typedSecrets.entered, typedSecrets.refused]) {
    for (const [v, until] of pool) {
      if (until > now) break;
      pool.delete(v);
    }
  }
}

const TOKEN_SHAPES = [/xox[abpr]-[A-Za-z0-9-]+/g, /xapp-[A-Za-z0-9-]+/g, /Bearer\s+[A-Za-z0-9._~+/=-]+/gi];

/** Masks registered secrets and token-shaped strings in free text. */
export function redactText(text: string): string {
  let out = text;
  for (const s of knownSecrets) if (out.includes(s)) out = out.split(s).join('[redacted]');
  if (typedSecrets.entered.size || typedSecrets.refused.size) {
    dropExpired(Date.now());
    for (const pool of [typedSecrets.entered, typedSecrets.refused]) {
      for (const s of pool.keys()) if (out.includes(s)) out = out.split(s).join('[redacted]');
    }
  }
  for (const re of TOKEN_SHAPES) out = out.replace(re, (m) => (m.toLowerCase().startsWith('bearer') ? 'Bearer [redacted]' : '[redacted]'));
  return out;
}

/** `password=…`, `"mnemonic": "…"`, `token: …` in free text: a secret-named key and its value. */
const SECRET_ASSIGNMENT_RE =
  /(["']?\b[\w-]*(?:password|passphrase|mnemonic|token|secret|signature|api[_-]?key|private[_-]?key|credential|authorization)[\w-]*["']?)(\s*[=:]\s*)("[^"]*"|'[^']*'|(?:Bearer\s+)?[^\s,;}\]]+)/gi;

/**
 * Masks secrets in text that is not ours, such as a node's own log lines, with the rules of the
 * bot's log: a JSON line is sanitised as a logged object (secret keys at any depth, secret
 * values); any other line has the value of a secret-named key masked, then registered secrets
 * and token shapes (redactText).
 */
export function redactLogText(text: string): string {
  return text
    .split('\n')
    .map((line) => {
      const t = line.trim();
      if (t.startsWith('{') && t.endsWith('}')) {
        try {
          return JSON.stringify(sanitizeForLog(JSON.parse(t)));
        } catch {
          /* not JSON after all: mask it as text */
        }
      }
      return redactText(line.replace(SECRET_ASSIGNMENT_RE, (_m, key: string, sep: string) => `${key}${sep}[redacted]`));
    })
    .join('\n');
}

function isPlainObject(v: object): boolean {
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** An error as a plain object: type, message, stack, its own fields and its cause. */
function errorToPlain(e: Error): Record<string, unknown> {
  const out: Record<string, unknown> = { type: e.constructor?.name || e.name || 'Error', message: e.message, stack: e.stack };
  for (const k of Object.keys(e)) out[k] = (e as unknown as Record<string, unknown>)[k];
  if (e.cause !== undefined && !('cause' in out)) out.cause = e.cause;
  return out;
}

/**
 * A copy of a logged value that holds no secret: errors become plain objects (nested errors,
 * such as a Slack `original` or a `cause`, too), secret keys are masked,
 * request-carrying keys are dropped and every string is passed through redactText.
 * Other class instances (a fastify request) are left to their serializers.
 */
export function sanitizeForLog(value: unknown, depth = 0, seen = new WeakSet<object>()): unknown {
  if (typeof value === 'string') return redactText(value);
  if (value === null || typeof value !== 'object') return value;
  if (seen.has(value)) return '[circular]';
  if (depth >= MAX_DEPTH) return '[too deep]';
  seen.add(value);
  let source: unknown = value;
  if (value instanceof Error) source = errorToPlain(value);
  if (Array.isArray(source)) return source.map((x) => sanitizeForLog(x, depth + 1, seen));
  if (!isPlainObject(source as object)) return source;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(source as Record<string, unknown>)) {
    if (REQUEST_KEYS.has(k) && v !== null && typeof v === 'object') out[k] = '[omitted: request data]';
    else if (SECRET_KEY_RE.test(k) && v !== undefined && v !== null && typeof v !== 'boolean' && typeof v !== 'number') out[k] = '[redacted]';
    else out[k] = sanitizeForLog(v, depth + 1, seen);
  }
  return out;
}

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

export function createLogger(opts: { level?: string; destination?: NodeJS.WritableStream } = {}): Logger {
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
    (opts.destination as pino.DestinationStream | undefined) ?? stderrDestination(),
  );
}

export type { Logger };

/** A logger that writes nothing, for tests and libraries that were given none. */
export const silentLogger: Logger = pino({ level: 'silent' });
