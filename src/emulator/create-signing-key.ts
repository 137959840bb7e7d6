import { generateKeyPairSync, sign as cryptoSign, type KeyObject } from 'node:crypto';
import type { KeyType } from './types.js';

export interface SigningKey {
  type: KeyType;
  /** How the signature is made, as served next to the public key. */
  algorithm: string;
  publicKeyPem: string;
  /** Base64 signature of the exact bytes. */
  sign(body: Buffer | string): string;
}

const ALGORITHMS: Record<KeyType, string> = {
  ed25519: 'Ed25519',
  p256: 'ECDSA-P256-SHA256',
  secp256k1: 'ECDSA-secp256k1-SHA256',
  rsa: 'RSA-PKCS1-v1_5-SHA256',
};

/**
 * The account's webhook signing key. Ed25519 signs the raw bytes; ECDSA (P-256,
 * secp256k1) signs SHA-256 with a DER-encoded signature; RSA is PKCS#1 v1.5 with SHA-256.
 * The public key is SPKI PEM.
 */
export function createSigningKey(type: KeyType = 'ed25519'): SigningKey {
  let privateKey: KeyObject;
  let publicKey: KeyObject;
  switch (type) {
    case 'ed25519':
      ({ privateKey, publicKey } = generateKeyPairSync('ed25519'));
      break;
    case 'p256':
      ({ privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }));
      break;
    case 'secp256k1':
      ({ privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'secp256k1' }));
      break;
    case 'rsa':
      ({ privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 }));
      break;
    default:
      throw new Error(`unknown key type ${JSON.stringify(type)}: use ed25519, p256, secp256k1 or rsa`);
  }
  const digest = type === 'ed25519' ? null : 'sha256';
  return {
    type,
    algorithm: ALGORITHMS[type],
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    sign(body) {
      const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
      return cryptoSign(digest, bytes, privateKey).toString('base64');
    },
  };
}
