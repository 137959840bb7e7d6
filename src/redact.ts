/**
 * The one redactor: `redact(text)` masks secrets in any text by what they are, not only by the
 * name they are printed under. It is used for the bot's log (src/log.ts), for a node's log lines
 * shown in chat and attached (`node logs`), for the arguments kept in the audit trail and its
 * CSV export, and for whatever a peer's error message echoes. It masks:
 *
 * - every registered secret's value: each configured secret (registerSecret, for good) and the
 *   secrets users typed or nodes answered (registerTypedSecret, for a while);
 * - a run of BIP-39 words (a mnemonic, numbered or not, with or without a name before it);
 * - extended private keys (`xprv…`, `tprv…`, and their `y`/`z`/`u`/`v` forms) and PEM private keys;
 * - `Authorization:` headers (Basic, Bearer, Biscuit, any scheme), and Bearer, Biscuit and
 *   Basic credentials wherever they appear, and a bare Biscuit token;
 * - the password in a URL (`https://user:password@host`);
 * - `--password hunter2`, `--rpc-password=…` and other secret-named flags;
 * - a secret-named key's value: `password=…`, `"mnemonic": "…"`, `token: a b c` (to the end of
 *   the line, or the next `key=`, when a space follows the `:` or `=`);
 * - token shapes: Slack (`xox…-`, `xapp-`), Discord bot tokens, GitHub and AWS keys;
 * - in a JSON line, the value of any secret-named key at any depth.
 *
 * It has no dependency on the rest of the bot, so every room may use it (the leaves of src/).
 */
import { BIP39_ENGLISH_WORDS } from './bip39-words.js';

export const REDACTED = '[redacted]';

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
 * Forgets every registered secret. For a process that runs one bot after another in one module
 * graph (the tests that share a worker): each bot registers its own, and a word that was a
 * secret of an earlier one (`secret`) must not be masked in a later one's replies.
 */
export function forgetSecrets(): void {
  knownSecrets.clear();
  typedSecrets.entered.clear();
  typedSecrets.refused.clear();
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

function maskRegistered(text: string): string {
  let out = text;
  for (const s of knownSecrets) if (out.includes(s)) out = out.split(s).join(REDACTED);
  if (typedSecrets.entered.size || typedSecrets.refused.size) {
    dropExpired(Date.now());
    for (const pool of [typedSecrets.entered, typedSecrets.refused]) {
      for (const s of pool.keys()) if (out.includes(s)) out = out.split(s).join(REDACTED);
    }
  }
  return out;
}

/** The words in a name that make its value a secret. */
const SECRET_WORDS =
  'password|passphrase|passwd|pwd|mnemonic|seed|token|secret|signature|credential|authorization|cookie|api[_-]?key|private[_-]?key|routing[_-]?key|pagerduty[_-]?key|access[_-]?key|secret[_-]?key|auth[_-]?key|integration[_-]?key';
/** A key, flag or field name whose value is a secret (`rpc_password`, `--mnemonic`, `X-Api-Key`). */
export const SECRET_KEY_RE = new RegExp(
  `^(?:proxy-)?authorization$|^(?:set-)?cookie$|^pass$|^pw$|(?:^|[_-])pass(?:$|[_-])|${SECRET_WORDS}`,
  'i',
);
/** Names that hold a secret word but no secret: a public key, a key's id, a token's kind or count. */
const NOT_SECRET_KEY_RE =
  /pub(?:lic)?[_-]?key|key[_-]?(?:id|name|type|kind)$|token[_-]?(?:type|kind|count|id|name|expires?(?:_at)?)$|seed[_-]?(?:peers?|nodes?)$|^(?:has|is|no|with)[_-]/i;

/** Whether a key, flag or field name holds a secret value. */
export function isSecretKeyName(name: string): boolean {
  const bare = name.replace(/^-+/, '');
  return SECRET_KEY_RE.test(bare) && !NOT_SECRET_KEY_RE.test(bare);
}

// --- shapes ---------------------------------------------------------------------------------

const PEM_PRIVATE_KEY_RE = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g;
/** `xprv…`/`tprv…` (BIP-32), and the `yprv`/`zprv`/`uprv`/`vprv`/`Yprv`/`Zprv`/`Uprv`/`Vprv` forms of other wallets. */
const EXTENDED_KEY_RE = /\b[xtyzuvYZUV]prv[1-9A-HJ-NP-Za-km-z]{20,}/g;
/** `scheme://user:password@host`: the password (whatever it holds but `@`, `/` and blanks). */
const URL_CREDENTIALS_RE = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s/@:"'<>]*):([^\s/@"'<>]+)@/gi;
/** An Authorization header or field, its scheme kept: `Authorization: Basic dXNl…`. */
const AUTH_HEADER_RE =
  /\b((?:proxy-)?authorization)(["']?\s*[:=]\s*["']?)(?:(basic|bearer|biscuit|token|digest|negotiate|ntlm|apikey|hmac[\w-]*)\s+)?([^\s"',;]+)/gi;
/** A Bearer or Biscuit credential anywhere. */
const BEARER_RE = /\b(Bearer|Biscuit)\s+(?!\[redacted\])[A-Za-z0-9._~+/=-]+/gi;
/** A Basic credential anywhere: base64 holding a digit, `+`, `/` or `=` (not a word such as "Basic settings"). */
const BASIC_RE = /\b(Basic)\s+(?=[A-Za-z0-9+/]*[0-9+/=])[A-Za-z0-9+/]{6,}={0,2}/g;
/** A serialized Biscuit token (base64url of its protobuf: the first byte 0x12 reads "E"), long and not hex. */
const BISCUIT_RE = /(?<![A-Za-z0-9_-])E(?=[A-Za-z0-9_-]*[g-zG-Z_-])[A-Za-z0-9_-]{60,}={0,2}/g;
const TOKEN_SHAPES: RegExp[] = [
  /\bxox[abposr]-[A-Za-z0-9-]+/g,
  /\bxapp-[A-Za-z0-9-]+/g,
  // Discord bot token: the user id in base64, a timestamp, an HMAC.
  /\b[MNO][A-Za-z\d_-]{22,27}\.[A-Za-z\d_-]{5,7}\.[A-Za-z\d_-]{25,}/g,
  /\bgh[pousr]_[A-Za-z0-9]{30,}/g,
  /\bgithub_pat_[A-Za-z0-9_]{30,}/g,
  /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g,
];

/** `--password hunter2`, `--rpc-password=hunter2`, `-p hunter2` is not one (too short a name to know). */
const FLAG_RE = /(^|[\s"'([{,;])(--?[A-Za-z][\w-]*)(=|[ \t]+)("[^"]*"|'[^']*'|[^\s"']+)/g;

/**
 * A secret-named key and what follows it: `password=`, `"mnemonic": `, `token: `, `seed words:`.
 * The value is found by valueEnd.
 */
const ASSIGNMENT_RE = /(["']?)\b([A-Za-z][\w.-]*?)\1((?:[ \t]+words)?[ \t]*[=:][ \t]*)/g;

/** Where an unquoted value that starts at `from` ends: the first blank after `=` with none before; else the line's end, a `,;}]` or the next `key=`. */
function valueEnd(line: string, from: number, spaced: boolean): number {
  if (!spaced) {
    const m = /[\s,;}\]]/.exec(line.slice(from));
    return m ? from + m.index : line.length;
  }
  const rest = line.slice(from);
  const m = /[,;}\]]|\s+[A-Za-z][\w.-]*\s*[=:]\s*\S|\s+\|/.exec(rest);
  return m ? from + m.index : line.length;
}

function maskAssignments(line: string): string {
  let out = '';
  let last = 0;
  ASSIGNMENT_RE.lastIndex = 0;
  for (let m = ASSIGNMENT_RE.exec(line); m; m = ASSIGNMENT_RE.exec(line)) {
    const [whole, , key, sep] = m;
    if (!isSecretKeyName(key)) continue;
    const start = m.index + whole.length;
    const rest = line.slice(start);
    if (/^(?:[A-Za-z]+\s+)?["']?\[redacted/.test(rest)) continue;
    let end: number;
    const quoted = /^("(?:[^"\\]|\\.)*"|'[^']*')/.exec(rest);
    if (quoted) end = start + quoted[0].length;
    else if (/^(?:Bearer|Biscuit|Basic)\s/i.test(rest)) end = start + /^\S+\s+\S*/.exec(rest)![0].length;
    else end = valueEnd(line, start, /\s$/.test(sep) || sep.includes(':'));
    if (end <= start) continue;
    const value = line.slice(start, end);
    // `password: null`, `token: true`, `secret: [redacted]`: nothing to hide.
    if (/^(?:null|true|false|undefined|none|\[redacted\]|""|''|\*+)$/i.test(value)) continue;
    out += line.slice(last, start) + (quoted ? `${value[0]}${REDACTED}${value[0]}` : REDACTED);
    last = end;
    ASSIGNMENT_RE.lastIndex = end;
  }
  return last === 0 ? line : out + line.slice(last);
}

/** How many BIP-39 words in a row make a run worth hiding (a mnemonic has 12 or 24; prose rarely has 5). */
export const BIP39_RUN_MIN_WORDS = 5;
/** A word and what may follow it within a run: blanks, a comma, quotes, a number (`1.`, `2)`, `3:`). */
const WORD_RE = /[a-z]+/g;
const RUN_GAP_RE = /^[\s,;"'[\]()]*(?:\d{1,2}[.):]?[\s,;"'[\]()]*)?$/;

function maskWordRuns(text: string): string {
  if (!/[a-z]{3}/.test(text)) return text;
  const words: Array<{ start: number; end: number }> = [];
  const runs: Array<{ start: number; end: number }> = [];
  const flush = () => {
    if (words.length >= BIP39_RUN_MIN_WORDS) runs.push({ start: words[0].start, end: words[words.length - 1].end });
    words.length = 0;
  };
  WORD_RE.lastIndex = 0;
  for (let m = WORD_RE.exec(text); m; m = WORD_RE.exec(text)) {
    const start = m.index;
    const end = start + m[0].length;
    const wordBoundary = (start === 0 || !/[A-Za-z0-9_]/.test(text[start - 1])) && (end === text.length || !/[A-Za-z0-9_]/.test(text[end]));
    if (!wordBoundary || !BIP39_ENGLISH_WORDS.has(m[0])) {
      flush();
      continue;
    }
    const prev = words[words.length - 1];
    if (prev && !RUN_GAP_RE.test(text.slice(prev.end, start))) flush();
    words.push({ start, end });
  }
  flush();
  if (!runs.length) return text;
  let out = '';
  let last = 0;
  for (const r of runs) {
    out += text.slice(last, r.start) + REDACTED;
    last = r.end;
  }
  return out + text.slice(last);
}

function maskLine(line: string): string {
  let out = line;
  out = out.replace(URL_CREDENTIALS_RE, (_m, scheme: string, user: string) => `${scheme}${user}:${REDACTED}@`);
  out = out.replace(AUTH_HEADER_RE, (m, name: string, sep: string, scheme: string | undefined, value: string) =>
    value === REDACTED || value.startsWith('[redacted') ? m : `${name}${sep}${scheme ? `${scheme} ` : ''}${REDACTED}`,
  );
  out = out.replace(BEARER_RE, (_m, scheme: string) => `${scheme} ${REDACTED}`);
  out = out.replace(BASIC_RE, (_m, scheme: string) => `${scheme} ${REDACTED}`);
  out = out.replace(EXTENDED_KEY_RE, REDACTED);
  for (const re of TOKEN_SHAPES) out = out.replace(re, REDACTED);
  out = out.replace(BISCUIT_RE, REDACTED);
  out = out.replace(FLAG_RE, (m, before: string, flag: string, sep: string, value: string) =>
    isSecretKeyName(flag) && value !== REDACTED && !/^-/.test(value)
      ? `${before}${flag}${sep}${value.startsWith('"') || value.startsWith("'") ? `${value[0]}${REDACTED}${value[0]}` : REDACTED}`
      : m,
  );
  out = maskAssignments(out);
  out = maskWordRuns(out);
  return out;
}

// --- objects --------------------------------------------------------------------------------

/** Keys under which HTTP clients keep the request they made (headers, body): never logged. */
const REQUEST_KEYS = new Set(['config', 'request', 'options', 'requestBody', 'body', 'rawBody']);
const MAX_DEPTH = 8;

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
 * A copy of a value that holds no secret: errors become plain objects (nested errors, such as a
 * Slack `original` or a `cause`, too), secret-named keys are masked, request-carrying keys are
 * dropped and every string is passed through redact. Other class instances (a fastify request)
 * are left to their serializers.
 */
export function redactValue(value: unknown, depth = 0, seen = new WeakSet<object>()): unknown {
  if (typeof value === 'string') return redact(value);
  if (value === null || typeof value !== 'object') return value;
  if (seen.has(value)) return '[circular]';
  if (depth >= MAX_DEPTH) return '[too deep]';
  seen.add(value);
  let source: unknown = value;
  if (value instanceof Error) source = errorToPlain(value);
  if (Array.isArray(source)) return source.map((x) => redactValue(x, depth + 1, seen));
  if (!isPlainObject(source as object)) return source;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(source as Record<string, unknown>)) {
    if (REQUEST_KEYS.has(k) && v !== null && typeof v === 'object') out[k] = '[omitted: request data]';
    else if (isSecretKeyName(k) && v !== undefined && v !== null && typeof v !== 'boolean' && typeof v !== 'number') out[k] = REDACTED;
    else out[k] = redactValue(v, depth + 1, seen);
  }
  return out;
}

// --- the redactor ---------------------------------------------------------------------------

/**
 * Masks every secret in `text` (see the top of this file). A line that is a JSON object is
 * masked as an object (secret-named keys at any depth) and written back as JSON; every other line
 * by the shapes above. Idempotent: masking masked text changes nothing.
 */
export function redact(text: string): string {
  if (!text) return text;
  let out = maskRegistered(text);
  if (out.includes('PRIVATE KEY-----')) out = out.replace(PEM_PRIVATE_KEY_RE, `${REDACTED} (a private key)`);
  const lines = out.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const t = lines[i].trim();
    if (t.length > 1 && t.startsWith('{') && t.endsWith('}')) {
      try {
        lines[i] = JSON.stringify(redactValue(JSON.parse(t)));
        continue;
      } catch {
        /* not JSON after all: mask it as text */
      }
    }
    lines[i] = maskLine(lines[i]);
  }
  return lines.join('\n');
}
