/**
 * `npm run doctor`: checks everything the bot needs, says what is wrong in plain words,
 * and exits non-zero if anything is. Never prints a secret.
 */
import { got } from 'got';
import { mkdtempSync } from 'node:fs';
import { ConfigError, loadConfig, secretValues, type Config } from '../config.js';
import { policyConfigProblems } from '../access/index.js';
import { createHostingClient, ServiceError } from '../hosting/index.js';
import { ed25519, parsePublicKey } from '../webhooks/index.js';
import { describeUrl, openDatabase, openPostgres, schemaStatus } from '../store/index.js';
import { redactText, registerSecret } from '../log.js';

export interface DoctorIo {
  env: NodeJS.ProcessEnv;
  out: (line: string) => void;
  timeoutMs?: number;
}

type Check = { name: string; run: () => Promise<string | undefined> };

/** Returns the exit code: 0 when every check passed, 1 otherwise. */
export async function runDoctor(io: DoctorIo): Promise<number> {
  const { out } = io;
  let config: Config;
  try {
    config = loadConfig(io.env);
    const policyProblems = policyConfigProblems(config);
    if (policyProblems.length) throw new ConfigError(policyProblems);
    for (const v of secretValues(config)) registerSecret(v);
    out('✓ configuration: every variable is valid');
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    out('✗ configuration:');
    for (const p of err.problems) out(`    - ${p}`);
    out('Fix these first, then run npm run doctor again.');
    return 1;
  }

  const timeout = io.timeoutMs ?? 10_000;
  const checks: Check[] = [];
  if (config.demo) {
    out('• service: no SERVICE_URL, so `npm start` runs the demo against the built-in emulator');
  } else {
    const hosting = createHostingClient({
      baseUrl: config.SERVICE_URL!,
      token: config.SERVICE_API_TOKEN!,
      timeoutMs: timeout,
      retry: { limit: 0 },
    });
    checks.push({
      name: `service at ${config.SERVICE_URL}`,
      run: async () => `reachable, token accepted (${(await hosting.listNodes()).length} nodes)`,
    });
    checks.push({
      name: 'webhook public key',
      run: async () => {
        const key = parsePublicKey(await hosting.webhookPublicKey());
        return `fetched and parsed (${describeKey(key)})${key.asymmetricKeyType === 'ed25519' ? `; ${ed25519Note()}` : ''}`;
      },
    });
  }
  if (config.PUBLIC_URL) out(`✓ PUBLIC_URL: ${config.PUBLIC_URL} is HTTPS`);
  else out("• PUBLIC_URL: not set; `watch add` cannot point a node's webhookUrl at the bot (set it to the bot's public HTTPS base)");

  if (config.slack.mode !== 'off') {
    const base = config.SLACK_API_URL ?? 'https://slack.com/api/';
    checks.push({
      name: 'Slack bot token',
      run: async () => {
        const r = await got
          .post(`${base.replace(/\/?$/, '/')}auth.test`, {
            headers: { authorization: `Bearer ${config.SLACK_BOT_TOKEN}` },
            timeout: { request: timeout },
            retry: { limit: 0 },
          })
          .json<{ ok: boolean; error?: string; team?: string; user?: string }>();
        if (!r.ok)
          throw new Error(`Slack refused the bot token (${r.error}); copy the Bot User OAuth Token (xoxb-…) from the app's OAuth page`);
        return `accepted (bot ${r.user ?? '?'} in ${r.team ?? '?'}), ${config.slack.mode === 'socket' ? 'Socket Mode' : 'HTTP mode at /slack/events'}`;
      },
    });
    if (config.SLACK_APP_TOKEN) {
      checks.push({
        name: 'Slack app token',
        run: async () => {
          const r = await got
            .post(`${base.replace(/\/?$/, '/')}apps.connections.open`, {
              headers: { authorization: `Bearer ${config.SLACK_APP_TOKEN}` },
              timeout: { request: timeout },
              retry: { limit: 0 },
            })
            .json<{ ok: boolean; error?: string }>();
          if (!r.ok)
            throw new Error(
              `Slack refused the app-level token (${r.error}); create one with the connections:write scope under Basic Information`,
            );
          return 'accepted (Socket Mode can connect)';
        },
      });
    }
  }
  if (config.discord.mode !== 'off') {
    if (config.DISCORD_TOKEN) {
      const base = (config.DISCORD_API_URL ?? 'https://discord.com/api').replace(/\/$/, '');
      checks.push({
        name: 'Discord bot token',
        run: async () => {
          const r = await got.get(`${base}/v10/users/@me`, {
            headers: { authorization: `Bot ${config.DISCORD_TOKEN}` },
            timeout: { request: timeout },
            retry: { limit: 0 },
            throwHttpErrors: false,
          });
          if (r.statusCode === 401) throw new Error('Discord refused the bot token (401); reset it under Bot in the developer portal');
          if (r.statusCode >= 400) throw new Error(`Discord answered ${r.statusCode}`);
          return `accepted (${(JSON.parse(r.body) as { username?: string }).username ?? 'bot'})`;
        },
      });
    } else {
      out('✓ Discord: HTTP interactions with DISCORD_PUBLIC_KEY (posting notifications needs DISCORD_TOKEN too)');
    }
  }
  checks.push(config.DATABASE_URL ? postgresCheck(config.DATABASE_URL) : sqliteCheck(config.DATABASE_PATH));

  let failed = 0;
  for (const check of checks) {
    try {
      out(`✓ ${check.name}: ${await check.run()}`);
    } catch (err) {
      failed++;
      out(`✗ ${check.name}: ${explain(err)}`);
    }
  }
  out(failed ? `${failed} check(s) failed.` : 'All checks passed.');
  return failed ? 1 : 0;
}

/** The SQLite file: writable, migrated, at the schema version this build expects. */
function sqliteCheck(path: string): Check {
  return {
    name: `database (SQLite) at ${path}`,
    run: async () => {
      const file = path === ':memory:' ? `${mkdtempSync('/tmp/rln-doctor-')}/probe.db` : path;
      const db = openDatabase(file);
      try {
        await db.exec(
          'CREATE TABLE IF NOT EXISTS doctor_probe (at TEXT); INSERT INTO doctor_probe VALUES (datetime()); DELETE FROM doctor_probe;',
        );
        return `writable, ${schemaText(await schemaStatus(db))}`;
      } finally {
        await db.close();
      }
    },
  };
}

/**
 * DATABASE_URL: connects WITHOUT migrating (doctor may run from a new image before a rolling
 * upgrade, while older replicas still use the database) and compares the schema versions.
 * Only the password-free form of the URL is ever printed.
 */
function postgresCheck(url: string): Check {
  const where = describeUrl(url);
  return {
    name: `database (PostgreSQL) at ${where}`,
    run: async () => {
      let db: Awaited<ReturnType<typeof openPostgres>>;
      try {
        db = await openPostgres(url, { max: 1, onError: () => undefined, migrate: false });
      } catch (err) {
        throw new Explained(explainPostgres(err, url));
      }
      try {
        return `connected, ${schemaText(await schemaStatus(db))}`;
      } finally {
        await db.close();
      }
    },
  };
}

/** The schema versions in words; a database migrated by a newer version fails the check. */
function schemaText(s: { applied: number; expected: number; missing: number[]; unknown: number[] }): string {
  if (s.unknown.length) {
    throw new Explained(
      `schema version ${s.applied}, but this build knows only up to ${s.expected}: the database was migrated by a newer version (unknown: ${s.unknown.join(', ')}). Run that version or a newer one`,
    );
  }
  if (!s.missing.length) return `schema version ${s.applied} (the version this build expects)`;
  return `schema version ${s.applied}, this build expects ${s.expected} (missing: ${s.missing.join(', ')}): run the new version once to migrate`;
}

/** Why PostgreSQL refused or could not be reached, with what to do; never the password. */
function explainPostgres(err: unknown, url: string): string {
  const codes: string[] = [];
  for (let e: unknown = err; e && typeof e === 'object' && codes.length < 4; e = (e as { cause?: unknown }).cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') codes.push(code);
  }
  const message = err instanceof Error ? err.message : String(err);
  const has = (...c: string[]) => codes.some((x) => c.includes(x));
  let user = '';
  let database = '';
  try {
    const u = new URL(url);
    user = decodeURIComponent(u.username);
    database = decodeURIComponent(u.pathname.slice(1));
  } catch {
    /* refused by the configuration check already */
  }
  if (has('28P01', '28000'))
    return `the server refused the credentials of user "${user}" (wrong password, or no such user). Check the user and password in DATABASE_URL`;
  if (has('3D000'))
    return `the database "${database}" does not exist on the server. Create it (createdb ${database}) or fix the name in DATABASE_URL`;
  if (
    has('ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH') ||
    /timeout|terminated|connect/i.test(message)
  )
    return `unreachable (${codes[0] ?? redactText(message)}). Check the host and port in DATABASE_URL, that PostgreSQL is running and that this machine may connect to it`;
  return `could not connect: ${redactText(message)}`;
}

function describeKey(k: { asymmetricKeyType?: string; asymmetricKeyDetails?: { namedCurve?: string } }): string {
  const curve = k.asymmetricKeyDetails?.namedCurve;
  return curve ? `${k.asymmetricKeyType} ${curve}` : String(k.asymmetricKeyType);
}

/** How this machine verifies Ed25519 webhook signatures (webhooks/ed25519.ts). */
function ed25519Note(): string {
  return ed25519().backend === 'libsodium'
    ? 'signatures verified through libsodium'
    : "signatures verified through node:crypto: sodium-native's addon did not load on this platform, so each webhook costs about 40% more CPU";
}

/** A failure already told in words (and free of secrets): printed as it is. */
class Explained extends Error {}

function explain(err: unknown): string {
  if (err instanceof Explained) return err.message;
  if (err instanceof ServiceError) {
    if (err.status === 401 || err.status === 403)
      return `refused: the service did not accept SERVICE_API_TOKEN (HTTP ${err.status}). ${err.hint}`;
    return redactText(`${err.message}${err.hint ? ` ${err.hint}` : ''}`);
  }
  const message = err instanceof Error ? err.message : String(err);
  if (/ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|timed out/i.test(message))
    return `unreachable (${redactText(message)}); check the URL and the network`;
  return redactText(message);
}
