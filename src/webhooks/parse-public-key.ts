/**
 * The webhook public key, in whatever shape the service serves it (docs/reference/hosting-service.md,
 * "Webhooks"): PEM (SPKI, or PKCS#1 for RSA), a bare hex or base64 key (32-byte Ed25519,
 * 33/65-byte SEC1 EC point, or DER SPKI), a JWK or a JWK set, or any of these inside a JSON
 * object (`{publicKey}`, `{key}`, `{data: {...}}`, `{jwk}`, ...). Pure, node:crypto only.
 */
import { createPublicKey, ECDH, type KeyObject } from 'node:crypto';

/** What was given could not be read as a public key. Carries no key material. */
export class PublicKeyError extends Error {
  override readonly name = 'PublicKeyError';
}

const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
/** EC curves tried for a bare SEC1 point, in this order (both are kept when both accept it). */
const EC_CURVES: Array<{ openssl: string; jwk: string }> = [
  { openssl: 'prime256v1', jwk: 'P-256' },
  { openssl: 'secp256k1', jwk: 'secp256k1' },
];
const WRAPPER_FIELDS = [
  'publicKey',
  'public_key',
  'webhookPublicKey',
  'webhook_public_key',
  'key',
  'pem',
  'jwk',
  'data',
  'value',
  'result',
];

/** The first key candidate; see parsePublicKeys. */
export function parsePublicKey(raw: unknown): KeyObject {
  return parsePublicKeys(raw)[0];
}

/**
 * Every key the value can denote, in a fixed order. Usually one; a bare SEC1 point that lies
 * on both P-256 and secp256k1 (or an ambiguous hex/base64 string) gives several, and the
 * verifier tries each. Throws PublicKeyError when nothing fits.
 */
export function parsePublicKeys(raw: unknown): KeyObject[] {
  const keys = collect(raw, 0);
  if (!keys.length)
    throw new PublicKeyError(
      `the webhook public key is not in a known format (${describe(raw)}): expected PEM, hex, base64, a JWK, or one of these in a JSON object`,
    );
  return keys;
}

function describe(raw: unknown): string {
  if (raw === null || raw === undefined) return 'nothing was given';
  if (typeof raw === 'string') return `a string of ${raw.length} characters`;
  if (Buffer.isBuffer(raw)) return `${raw.length} bytes`;
  if (Array.isArray(raw)) return `an array of ${raw.length} items`;
  if (typeof raw === 'object') return `an object with fields ${Object.keys(raw).slice(0, 8).join(', ') || '(none)'}`;
  return `a ${typeof raw}`;
}

function collect(raw: unknown, depth: number): KeyObject[] {
  if (depth > 5 || raw === null || raw === undefined) return [];
  if (Buffer.isBuffer(raw) || raw instanceof Uint8Array) return fromBytes(Buffer.from(raw));
  if (typeof raw === 'string') return fromString(raw, depth);
  if (Array.isArray(raw)) return raw.flatMap((x) => collect(x, depth + 1));
  if (typeof raw === 'object') {
    const o = raw as Record<string, unknown>;
    if (typeof o.kty === 'string') return attempt(() => [createPublicKey({ key: o as never, format: 'jwk' })]);
    if (Array.isArray(o.keys)) return o.keys.flatMap((k) => collect(k, depth + 1));
    for (const field of WRAPPER_FIELDS) {
      if (field in o) {
        const found = collect(o[field], depth + 1);
        if (found.length) return found;
      }
    }
  }
  return [];
}

function attempt(fn: () => KeyObject[]): KeyObject[] {
  try {
    return fn().filter((k) => k.type === 'public');
  } catch {
    return [];
  }
}

function fromString(input: string, depth: number): KeyObject[] {
  const s = input.trim().replace(/^"+|"+$/g, '');
  if (!s) return [];
  if (s.startsWith('-----BEGIN')) {
    const pem = s.replace(/(\\r)?\\n/g, '\n');
    return attempt(() => [createPublicKey(pem)]);
  }
  if (s.startsWith('{') || s.startsWith('[')) {
    try {
      return collect(JSON.parse(s), depth + 1);
    } catch {
      return [];
    }
  }
  const compact = s.replace(/\s+/g, '');
  const out: KeyObject[] = [];
  const hex = compact.replace(/^0x/i, '');
  if (/^[0-9a-fA-F]+$/.test(hex) && hex.length % 2 === 0) out.push(...fromBytes(Buffer.from(hex, 'hex')));
  if (!out.length && /^[A-Za-z0-9+/_-]+={0,2}$/.test(compact)) {
    const b = Buffer.from(compact.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    out.push(...fromBytes(b));
  }
  return out;
}

function fromBytes(b: Buffer): KeyObject[] {
  if (b.length === 32) {
    return attempt(() => [createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, b]), format: 'der', type: 'spki' })]);
  }
  if ((b.length === 33 && (b[0] === 2 || b[0] === 3)) || (b.length === 65 && b[0] === 4)) {
    const out: KeyObject[] = [];
    for (const curve of EC_CURVES) out.push(...attempt(() => [ecPointKey(b, curve)]));
    return out;
  }
  if (b.length > 40 && b[0] === 0x30) {
    const spki = attempt(() => [createPublicKey({ key: b, format: 'der', type: 'spki' })]);
    if (spki.length) return spki;
    return attempt(() => [createPublicKey({ key: b, format: 'der', type: 'pkcs1' })]);
  }
  return [];
}

function ecPointKey(point: Buffer, curve: { openssl: string; jwk: string }): KeyObject {
  // convertKey checks that the point lies on the curve (it throws otherwise) and decompresses it.
  const full = ECDH.convertKey(point, curve.openssl, undefined, undefined, 'uncompressed') as Buffer;
  const x = full.subarray(1, 33).toString('base64url');
  const y = full.subarray(33, 65).toString('base64url');
  return createPublicKey({ key: { kty: 'EC', crv: curve.jwk, x, y }, format: 'jwk' });
}
