/**
 * Structured JSON-lines logging (pino) with secrets redacted twice over: by key
 * (token, password, mnemonic, secret, authorization…) and by value (any registered secret
 * string, and token-shaped strings, are replaced wherever they appear in a message).
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

const knownSecrets = new Set<string>();

/** Registers a secret value (a configured token, a password just typed) so it is masked anywhere. */
export function registerSecret(value: string | undefined): void {
  if (value && value.length >= 6) knownSecrets.add(value);
}

const TOKEN_SHAPES = [/xox[abpr]-[A-Za-z0-9-]+/g, /xapp-[A-Za-z0-9-]+/g, /Bearer\s+[A-Za-z0-9._~+/=-]+/gi];

/** Masks registered secrets and token-shaped strings in free text. */
export function redactText(text: string): string {
  let out = text;
  for (const s of knownSecrets) if (out.includes(s)) out = out.split(s).join('[redacted]');
  for (const re of TOKEN_SHAPES) out = out.replace(re, (m) => (m.toLowerCase().startsWith('bearer') ? 'Bearer [redacted]' : '[redacted]'));
  return out;
}

export function createLogger(opts: { level?: string; destination?: NodeJS.WritableStream } = {}): Logger {
  return pino(
    {
      level: opts.level ?? process.env.LOG_LEVEL ?? 'info',
      base: { app: 'rln-chatops' },
      redact: { paths: redactPaths, censor: '[redacted]' },
      hooks: {
        logMethod(args, method) {
          const masked = args.map((a) => (typeof a === 'string' ? redactText(a) : a));
          return method.apply(this, masked as Parameters<typeof method>);
        },
      },
      formatters: {
        level: (label) => ({ level: label }),
      },
      serializers: {
        err: (e: unknown) => {
          const err = pino.stdSerializers.err(e as Error);
          if (err.message) err.message = redactText(err.message);
          if (err.stack) err.stack = redactText(err.stack);
          return err;
        },
      },
    },
    (opts.destination as pino.DestinationStream | undefined) ?? pino.destination(2),
  );
}

export type { Logger };

/** A logger that writes nothing, for tests and libraries that were given none. */
export const silentLogger: Logger = pino({ level: 'silent' });
