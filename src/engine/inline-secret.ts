/** Which arguments are secrets: never accepted inline, never logged, redacted in the audit trail. */
import { isSecretKeyName, redact } from '../redact.js';
import type { AnyCommand } from './types.js';

/** Argument names that look like secrets, whatever the command. */
export const SECRET_NAME_RE =
  /password|passphrase|passwd|(^|[_-])pass($|[_-])|^pwd$|^pw$|mnemonic|(^|[_-])seed($|[_-])|token|secret|private[_-]?key|api[_-]?key|credential/i;

export function isSecretName(def: AnyCommand | undefined, name: string): boolean {
  // The redactor's names too (pagerduty_key, routing_key, api_key…): a declared argument may be typed, never kept.
  if (SECRET_NAME_RE.test(name) || isSecretKeyName(name)) return true;
  return !!def?.secrets?.some((f) => f.kind === 'secret' && f.name.toLowerCase() === name.toLowerCase());
}

/**
 * The first argument given inline that must only be entered in a dialog, if any: a secret field
 * of the command's dialog, or a secret-looking name the schema does not declare.
 */
export function findInlineSecret(def: AnyCommand | undefined, args: Record<string, unknown>): string | undefined {
  const shape = (def?.args?.shape ?? {}) as Record<string, unknown>;
  return Object.keys(args).find((k) => {
    if (def?.secrets?.some((f) => f.kind === 'secret' && f.name.toLowerCase() === k.toLowerCase())) return true;
    // A secret-looking name the schema declares (e.g. a swap's payment_secret) is meant to be typed.
    return SECRET_NAME_RE.test(k) && !(k in shape);
  });
}

/** The arguments that are not secrets (what a refused command line may still be audited with). */
export function withoutSecrets(def: AnyCommand | undefined, args: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(args).filter(([k]) => !isSecretName(def, k)));
}

/**
 * A copy of the arguments with secret-looking values replaced by `[redacted]`. The value of an
 * argument the command does not declare is never kept either: a mistyped name (`passwd=`,
 * `pin=`) is refused as unknown, and its value may well be the secret it was meant to be.
 * Every other value goes through the redactor, which masks a secret by its shape (a URL's
 * `user:password@`, a token, seed words) whatever the argument is called.
 */
export function redactArgs(def: AnyCommand | undefined, args: Record<string, unknown>): Record<string, string> {
  const shape = (def?.args?.shape ?? {}) as Record<string, unknown>;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(args)) {
    if (v === undefined) continue;
    out[k] = isSecretName(def, k) || !(k in shape) ? '[redacted]' : redact(typeof v === 'string' ? v : JSON.stringify(v));
  }
  return out;
}
