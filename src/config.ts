/**
 * Configuration from the environment, validated with zod. Every problem is reported at
 * once (ConfigError.problems), in words an operator can act on; secrets are never echoed.
 */
import { z } from 'zod';
import { PRINCIPAL_RE, roleNamed } from './vocabulary/index.js';
import { parseAllowList } from './vocabulary/index.js';

const url = (what: string) =>
  z
    .string()
    .trim()
    .refine((v) => {
      try {
        const u = new URL(v);
        return u.protocol === 'http:' || u.protocol === 'https:';
      } catch {
        return false;
      }
    }, `${what} must be an http(s) URL, e.g. https://example.com`);

/** A size in bytes: `65536`, or with a unit (`64KiB`, `16MiB`, `1GiB`), from `min` to `max`. */
const byteSize = (name: string, dflt: string, min: number, max: number, example: string) =>
  z
    .string()
    .trim()
    .default(dflt)
    .transform((v, ctx) => {
      const m = /^(\d+)\s*(b|kib|kb|k|mib|mb|m|gib|gb|g)?$/i.exec(v);
      const unit = (m?.[2] ?? 'b').toLowerCase();
      const bytes = m
        ? Number(m[1]) * (unit.startsWith('k') ? 1024 : unit.startsWith('m') ? 1024 ** 2 : unit.startsWith('g') ? 1024 ** 3 : 1)
        : NaN;
      if (!Number.isSafeInteger(bytes) || bytes < min || bytes > max) {
        ctx.addIssue({
          code: 'custom',
          message: `${name} must be a size from ${min / 1024} KiB to ${max / 1024 ** 2} MiB, e.g. ${example}`,
        });
        return z.NEVER;
      }
      return bytes;
    });

const principals = z
  .string()
  .optional()
  .transform((v) =>
    (v ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  )
  .refine(
    (list) => list.every((p) => PRINCIPAL_RE.test(p)),
    'each entry must look like slack:U123, discord:123456, slack-group:S123 or discord-role:123456',
  );

/** A written policy: its syntax is access's to read (src/access/parse-policy.ts), when the app is built. */
const policyText = z.string().optional();

const timeZone = z
  .string()
  .default('UTC')
  .refine((tz) => {
    // UTC, the default, is always known: not checked with a DateTimeFormat, which would load
    // ICU's time-zone data (resident memory) at every start (issue 18).
    if (tz === 'UTC') return true;
    try {
      new Intl.DateTimeFormat('en', { timeZone: tz });
      return true;
    } catch {
      return false;
    }
  }, 'LIMITS_TZ must be an IANA time zone, e.g. UTC or Europe/Zurich');

const envSchema = z.object({
  SERVICE_URL: url('SERVICE_URL').optional(),
  SERVICE_API_TOKEN: z.string().min(1).optional(),
  NODE_API_TOKEN: z.string().min(1).optional(),
  NODE_CREDENTIALS_FILE: z.string().min(1).optional(),
  /** 32 random bytes (base64 or hex): seals the private keys `node cert` keeps in the database. */
  CREDENTIALS_KEY: z
    .string()
    .optional()
    .refine(
      (v) => !v || credentialsKeyBytes(v) !== undefined,
      'CREDENTIALS_KEY must be 32 random bytes in base64 or hex, e.g. the output of: openssl rand -base64 32',
    ),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('0.0.0.0'),
  PUBLIC_URL: url('PUBLIC_URL')
    .refine((v) => v.startsWith('https://'), 'PUBLIC_URL must be HTTPS: the service only delivers webhooks to https URLs')
    .optional(),
  DATABASE_PATH: z.string().min(1).default('./data/rln-chatops.db'),
  /** PostgreSQL, shared by every replica (postgres://user:password@host:5432/db); unset: SQLite at DATABASE_PATH. */
  DATABASE_URL: z
    .string()
    .trim()
    .refine((v) => {
      try {
        const u = new URL(v);
        return (u.protocol === 'postgres:' || u.protocol === 'postgresql:') && u.hostname !== '';
      } catch {
        return false;
      }
    }, 'DATABASE_URL must be a PostgreSQL URL, e.g. postgres://user:password@db.example:5432/rln (unset it to use SQLite at DATABASE_PATH)')
    .optional(),
  SLACK_BOT_TOKEN: z.string().startsWith('xoxb-', 'SLACK_BOT_TOKEN must be a bot token (xoxb-…)').optional(),
  SLACK_APP_TOKEN: z.string().startsWith('xapp-', 'SLACK_APP_TOKEN must be an app-level token (xapp-…)').optional(),
  SLACK_SIGNING_SECRET: z.string().min(1).optional(),
  SLACK_API_URL: url('SLACK_API_URL').optional(),
  DISCORD_TOKEN: z.string().min(1).optional(),
  DISCORD_APPLICATION_ID: z.string().regex(/^\d+$/, 'DISCORD_APPLICATION_ID must be the numeric application id').optional(),
  DISCORD_PUBLIC_KEY: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, 'DISCORD_PUBLIC_KEY must be 64 hex characters')
    .optional(),
  DISCORD_API_URL: url('DISCORD_API_URL').optional(),
  DISCORD_GUILD_ID: z.string().regex(/^\d+$/, 'DISCORD_GUILD_ID must be the numeric server (guild) id').optional(),
  ADMIN_USERS: principals,
  OPERATOR_USERS: principals,
  READ_USERS: principals,
  APPROVAL_POLICY: policyText,
  SPEND_LIMITS: policyText,
  LIMITS_TZ: timeZone,
  AUDIT_RETENTION_DAYS: z.coerce.number().int().min(1, 'AUDIT_RETENTION_DAYS must be at least 1 (days)').default(365),
  SNAPSHOT_RETENTION_DAYS: z.coerce
    .number({ message: 'SNAPSHOT_RETENTION_DAYS must be a whole number of days, e.g. 35' })
    .int('SNAPSHOT_RETENTION_DAYS must be a whole number of days, e.g. 35')
    .min(1, 'SNAPSHOT_RETENTION_DAYS must be at least 1 (days)')
    .default(35),
  AUDIT_READ_ROLE: z
    .string()
    .default('admin')
    .transform((v, ctx) => {
      const role = roleNamed(v);
      if (!role)
        ctx.addIssue({ code: 'custom', message: 'AUDIT_READ_ROLE must be read, operate or admin (reader and operator are accepted)' });
      return role ?? 'admin';
    }),
  WEBHOOK_SIGNATURE_HEADER: z.string().min(1).default('X-Service-Signature'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  SERVICE_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  REPORT_LOW_SHARE: z.coerce.number().min(0).max(1).default(0.2),
  REPORT_HIGH_SHARE: z.coerce.number().min(0).max(1).default(0.8),
  /** Seconds between a replica's looks for report schedules added or removed through another replica; a fraction for tests. */
  REPORT_RELOAD_S: z.coerce
    .number({ message: 'REPORT_RELOAD_S must be a number of seconds, e.g. 5' })
    .min(0.1, 'REPORT_RELOAD_S must be between 0.1 and 3600 (seconds)')
    .max(3_600, 'REPORT_RELOAD_S must be between 0.1 and 3600 (seconds)')
    .default(5),
  /** Largest service event body in bytes (`65536`, or with a unit: `64KiB`, `1MiB`). */
  WEBHOOK_BODY_LIMIT: z
    .string()
    .trim()
    .default('64KiB')
    .transform((v, ctx) => {
      const m = /^(\d+)\s*(b|kib|kb|k|mib|mb|m)?$/i.exec(v);
      const unit = (m?.[2] ?? 'b').toLowerCase();
      const bytes = m ? Number(m[1]) * (unit.startsWith('k') ? 1024 : unit.startsWith('m') ? 1024 * 1024 : 1) : NaN;
      if (!Number.isSafeInteger(bytes) || bytes < 1024 || bytes > 16 * 1024 * 1024) {
        ctx.addIssue({ code: 'custom', message: 'WEBHOOK_BODY_LIMIT must be a size from 1KiB to 16MiB, e.g. 65536 or 64KiB' });
        return z.NEVER;
      }
      return bytes;
    }),
  /** How far ahead of this clock an event's timestamp may be before it is flagged (seconds). */
  MAX_FUTURE_SKEW_S: z.coerce.number().int().min(0).max(86_400).default(60),
  /** Node activity polling (issue 15): seconds between polls; a fraction is accepted for tests. */
  POLL_INTERVAL_S: z.coerce.number().positive('POLL_INTERVAL_S must be a positive number of seconds, e.g. 30').default(30),
  NODE_CALLS_MAX: z.coerce
    .number({ message: 'NODE_CALLS_MAX must be a whole number, e.g. 64' })
    .int('NODE_CALLS_MAX must be a whole number, e.g. 64')
    .min(1, 'NODE_CALLS_MAX must be at least 1')
    .max(1024, 'NODE_CALLS_MAX must be at most 1024')
    .default(64),
  NODE_CALLS_PER_NODE: z.coerce
    .number({ message: 'NODE_CALLS_PER_NODE must be a whole number, e.g. 4' })
    .int('NODE_CALLS_PER_NODE must be a whole number, e.g. 4')
    .min(1, 'NODE_CALLS_PER_NODE must be at least 1')
    .max(64, 'NODE_CALLS_PER_NODE must be at most 64')
    .default(4),
  /**
   * The nice value of the process's helper threads (V8's compiler and collector threads, libuv's pool,
   * the checkpointer): on a busy core the event loop's thread goes first (cli/helper-threads.ts). 0 leaves them be.
   */
  HELPER_THREADS_NICE: z.coerce
    .number({ message: 'HELPER_THREADS_NICE must be a whole number from 0 to 19, e.g. 10' })
    .int('HELPER_THREADS_NICE must be a whole number from 0 to 19, e.g. 10')
    .min(0, 'HELPER_THREADS_NICE must be a whole number from 0 to 19, e.g. 10')
    .max(19, 'HELPER_THREADS_NICE must be a whole number from 0 to 19, e.g. 10')
    .default(10),
  /** The most nodes the activity poller reads at once; below it, it sizes its concurrency from its measured poll time (issue 29). */
  POLL_MAX_CONCURRENCY: z.coerce
    .number()
    .int('POLL_MAX_CONCURRENCY must be a whole number, e.g. 64')
    .min(1, 'POLL_MAX_CONCURRENCY must be at least 1')
    .max(1_000, 'POLL_MAX_CONCURRENCY must be at most 1000')
    .default(64),
  /**
   * The indexer `node unlock` offers (prefilled in its dialog) for a node of the 6887cbf generation, which
   * follows the chain through one (TransactionSync). Unset: the dialog asks with no default (the demo: the emulator's).
   */
  UNLOCK_INDEXER_URL: z.string().trim().min(1).optional(),
  /** How long the bot waits for more nodes to finish an upgrade, to tell them in one message (ms). */
  UPGRADE_BATCH_MS: z.coerce.number().int().min(0).max(600_000).default(3_000),
  /** A node's total inbound / outbound below this many sats alerts (liquidity); unset: not watched. */
  INBOUND_FLOOR_SAT: z.coerce.number().int().nonnegative().optional(),
  OUTBOUND_FLOOR_SAT: z.coerce.number().int().nonnegative().optional(),
  /** The watch kinds' account-wide thresholds (issue 28; a watch may set its own, docs/watches.md). */
  WATCH_STUCK_AFTER_MIN: z.coerce.number().min(0).default(60),
  WATCH_EXPIRY_WITHIN_MIN: z.coerce.number().min(0).default(30),
  WATCH_UTXOS_BELOW: z.coerce.number().int().min(1).default(2),
  WATCH_PEER_GONE_MIN: z.coerce.number().min(0).default(10),
  WATCH_LIVENESS_AFTER: z.coerce.number().int().min(1).default(3),
  WATCH_BACKUP_DAYS: z.coerce.number().min(1).default(7),
  WATCH_INDEXER_URL: z.string().trim().min(1).optional(),
  WATCH_PROXY_ENDPOINT: z.string().trim().min(1).optional(),
  /** The slower checks (infra, backup, the refresh of waiting transfers) run every this many polls. */
  WATCH_SLOW_EVERY: z.coerce.number().int().min(1).default(10),
  PAGERDUTY_ROUTING_KEY: z.string().min(1).optional(),
  PAGERDUTY_EVENTS_URL: url('PAGERDUTY_EVENTS_URL').default('https://events.pagerduty.com/v2/enqueue'),
  ESCALATION_WEBHOOK_URL: url('ESCALATION_WEBHOOK_URL').optional(),
  ESCALATION_WEBHOOK_SECRET: z.string().min(1).optional(),
  /**
   * Hosts, addresses and CIDR blocks that webhook, escalation and paging URLs may reach although
   * they are private, loopback or link-local (comma list; empty: none).
   */
  ALLOW_PRIVATE_URLS: z
    .string()
    .default('')
    .refine((v) => {
      try {
        parseAllowList(v);
        return true;
      } catch {
        return false;
      }
    }, 'ALLOW_PRIVATE_URLS must be a comma list of hosts, addresses or CIDR blocks, e.g. hooks.internal,10.0.0.0/8'),
  /** The deadline a chat interaction's calls to its nodes share (seconds): an answer, or "alice did not answer in 10 s". */
  NODE_CALL_DEADLINE_S: z.coerce
    .number()
    .min(1, 'NODE_CALL_DEADLINE_S must be between 1 and 120 (seconds)')
    .max(120, 'NODE_CALL_DEADLINE_S must be between 1 and 120 (seconds)')
    .default(10),
  /** The most a node's API answer may hold before it is refused. */
  NODE_API_MAX_BYTES: byteSize('NODE_API_MAX_BYTES', '16MiB', 64 * 1024, 1024 ** 3, '16MiB'),
  /** The most a hosting service answer may hold before it is refused. */
  SERVICE_MAX_BYTES: byteSize('SERVICE_MAX_BYTES', '4MiB', 64 * 1024, 1024 ** 3, '4MiB'),
  /** The most of a node's log file that is downloaded (streamed: the end of a longer file is kept). */
  LOG_DOWNLOAD_MAX_BYTES: byteSize('LOG_DOWNLOAD_MAX_BYTES', '64MiB', 64 * 1024, 1024 ** 3, '64MiB'),
  /** Minutes an incident may stay unacknowledged before it pages (a watch's escalate_after= wins); a fraction for tests. */
  ESCALATE_AFTER_MIN: z.coerce.number().positive('ESCALATE_AFTER_MIN must be a positive number of minutes, e.g. 10').default(10),
});

export type Env = z.infer<typeof envSchema>;

export interface Config extends Env {
  /** No SERVICE_URL: run the built-in emulator (the demo). */
  demo: boolean;
  slack: { mode: 'socket' | 'http' | 'off' };
  discord: { mode: 'gateway' | 'http' | 'off' };
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly problems: string[]) {
    super(`The configuration has ${problems.length} problem(s):\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

/** Reads and checks the environment. Throws ConfigError listing every problem. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const raw = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = envSchema.safeParse(raw);
  const problems: string[] = [];
  if (!parsed.success) {
    for (const issue of parsed.error.issues) problems.push(`${issue.path.join('.') || 'environment'}: ${issue.message}`);
  }
  // Cross-field rules run on whatever is present, so every problem is listed at once.
  const e = (parsed.success ? parsed.data : raw) as Partial<Env>;
  {
    if (e.SERVICE_URL && !e.SERVICE_API_TOKEN)
      problems.push('SERVICE_API_TOKEN: required when SERVICE_URL is set (the management API token)');
    if (e.SLACK_APP_TOKEN && !e.SLACK_BOT_TOKEN) problems.push('SLACK_BOT_TOKEN: required with SLACK_APP_TOKEN (Socket Mode)');
    if (e.SLACK_SIGNING_SECRET && !e.SLACK_BOT_TOKEN) problems.push('SLACK_BOT_TOKEN: required with SLACK_SIGNING_SECRET (HTTP mode)');
    if (e.SLACK_BOT_TOKEN && !e.SLACK_APP_TOKEN && !e.SLACK_SIGNING_SECRET)
      problems.push('SLACK_APP_TOKEN or SLACK_SIGNING_SECRET: one is needed with SLACK_BOT_TOKEN (Socket Mode or HTTP mode)');
    if ((e.DISCORD_TOKEN || e.DISCORD_PUBLIC_KEY) && !e.DISCORD_APPLICATION_ID)
      problems.push('DISCORD_APPLICATION_ID: required with DISCORD_TOKEN or DISCORD_PUBLIC_KEY');
    if (parsed.success && (e.REPORT_LOW_SHARE ?? 0) >= (e.REPORT_HIGH_SHARE ?? 1))
      problems.push('REPORT_LOW_SHARE must be below REPORT_HIGH_SHARE');
  }
  if (problems.length) throw new ConfigError(problems);
  const env2 = parsed.data!;
  return {
    ...env2,
    demo: !env2.SERVICE_URL,
    slack: { mode: env2.SLACK_APP_TOKEN ? 'socket' : env2.SLACK_SIGNING_SECRET ? 'http' : 'off' },
    discord: { mode: env2.DISCORD_TOKEN ? 'gateway' : env2.DISCORD_PUBLIC_KEY ? 'http' : 'off' },
  };
}

/** Names of the variables whose values are secrets: never printed, logged or sent to chat. */
export const SECRET_VARIABLES = [
  'SERVICE_API_TOKEN',
  'NODE_API_TOKEN',
  'SLACK_BOT_TOKEN',
  'SLACK_APP_TOKEN',
  'SLACK_SIGNING_SECRET',
  'DISCORD_TOKEN',
  'PAGERDUTY_ROUTING_KEY',
  'ESCALATION_WEBHOOK_SECRET',
  'CREDENTIALS_KEY',
  // The whole URL, and (below) its password alone, which drivers and errors may print by itself.
  'DATABASE_URL',
] as const;

/**
 * The secret values of a configuration, for registerSecret: each SECRET_VARIABLES value, and the
 * password inside DATABASE_URL (as written, and percent-decoded; and any password or sslpassword
 * query parameter), which may show up on its own.
 */
export function secretValues(config: Partial<Record<(typeof SECRET_VARIABLES)[number], string | undefined>>): string[] {
  const values = SECRET_VARIABLES.map((name) => config[name]).filter((v): v is string => Boolean(v));
  if (config.DATABASE_URL) {
    try {
      const u = new URL(config.DATABASE_URL);
      if (u.password) values.push(u.password, decodeURIComponent(u.password));
      // The driver also takes a password in the query string (?password=…, ?sslpassword=…).
      for (const name of ['password', 'sslpassword']) {
        for (const v of u.searchParams.getAll(name)) if (v) values.push(v);
      }
    } catch {
      // Not a URL: the configuration check refuses it; the whole value is registered anyway.
    }
  }
  return values;
}

/** CREDENTIALS_KEY's 32 bytes (base64, base64url or 64 hex digits); undefined when it is not such a key. */
export function credentialsKeyBytes(text: string): Buffer | undefined {
  const t = text.trim();
  const bytes = /^[0-9a-fA-F]{64}$/.test(t)
    ? Buffer.from(t, 'hex')
    : /^[A-Za-z0-9+/_-]{43}=?$/.test(t)
      ? Buffer.from(t, 'base64url')
      : undefined;
  return bytes?.length === 32 ? bytes : undefined;
}
