/**
 * Ed25519 verification, the one step of every webhook request that costs the most (issue 29:
 * 40–45 % of the request path's CPU). It goes through libsodium (`sodium-native`, whose
 * prebuilt addon ships in the package) when its addon loads, and through node:crypto otherwise
 * (a platform without a prebuild): the same answers, only the cost differs.
 *
 * Why libsodium: node:crypto's one-shot `verify` sets up an OpenSSL context and looks the
 * algorithm up again for every call. Measured on the 2-core machine, per verification of a
 * service event: Node 20 (OpenSSL 3.0) 111 µs against libsodium's 65; Node 24 (OpenSSL 3.5),
 * the image's runtime, 82 against 50.
 *
 * The answers agree for every signature an RFC 8032 signer makes. libsodium is stricter only
 * where no honest signer goes (a small-order public key or R, a non-canonical encoding): such a
 * signature is refused, as a forgery attempt would be.
 */
import { createRequire } from 'node:module';
import { verify, type KeyObject } from 'node:crypto';

/** What is used of sodium-native. */
export interface Sodium {
  crypto_sign_verify_detached(signature: Buffer, message: Buffer, publicKey: Buffer): boolean;
}

/** `verify(key, body, signature)`: true when `signature` is `key`'s Ed25519 signature of `body`. */
export type Ed25519Verify = (key: KeyObject, body: Buffer, signature: Buffer) => boolean;

export type Ed25519Backend = 'libsodium' | 'node:crypto';

const SIGNATURE_BYTES = 64;
const PUBLIC_KEY_BYTES = 32;

/** EdDSA (Ed25519, Ed448) through node:crypto: false, never a throw, for what does not verify. */
export const nodeVerify: Ed25519Verify = (key, body, signature) => {
  try {
    return verify(null, body, key, signature);
  } catch {
    return false;
  }
};

/** A verifier over `sodium`, or node:crypto's when it is undefined. */
export function ed25519Verifier(sodium: Sodium | undefined): Ed25519Verify {
  if (!sodium) return nodeVerify;
  // The key's 32 raw bytes, read once per key object (the key cache keeps its objects).
  const raw = new WeakMap<KeyObject, Buffer>();
  return (key, body, signature) => {
    // libsodium asserts the length; node:crypto answers false.
    if (signature.length !== SIGNATURE_BYTES) return false;
    let publicKey = raw.get(key);
    if (!publicKey) {
      publicKey = Buffer.from(key.export({ format: 'jwk' }).x ?? '', 'base64url');
      raw.set(key, publicKey);
    }
    // (An Ed25519 key is always 32 bytes; anything else is node:crypto's to judge, never a throw.)
    if (publicKey.length !== PUBLIC_KEY_BYTES) return nodeVerify(key, body, signature);
    return sodium.crypto_sign_verify_detached(signature, body, publicKey);
  };
}

let loaded: { verify: Ed25519Verify; backend: Ed25519Backend } | undefined;

/** The process's verifier, made on first use (the addon is not loaded by a bot that gets no webhook). */
export function ed25519(): { verify: Ed25519Verify; backend: Ed25519Backend } {
  if (!loaded) {
    let sodium: Sodium | undefined;
    try {
      sodium = createRequire(import.meta.url)('sodium-native') as Sodium;
    } catch {
      sodium = undefined; // no prebuilt addon for this platform: node:crypto answers the same
    }
    loaded = { verify: ed25519Verifier(sodium), backend: sodium ? 'libsodium' : 'node:crypto' };
  }
  return loaded;
}
