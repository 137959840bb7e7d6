// Ed25519 through libsodium: used when its addon loads, with node:crypto's answers for every signature.
import { createRequire } from 'node:module';
import { generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ed25519, ed25519Verifier, type Sodium } from '../../src/webhooks/ed25519.js';
import { verifySignature } from '../../src/webhooks/index.js';

const sodium = createRequire(import.meta.url)('sodium-native') as Sodium;
const viaSodium = ed25519Verifier(sodium);
const viaNode = ed25519Verifier(undefined);
/** The order of the Ed25519 group, little-endian: S + L is the same signature, not canonical. */
const L = 2n ** 252n + 27742317777372353535851937790883648493n;

const flip = (b: Buffer, i: number): Buffer => {
  const c = Buffer.from(b);
  c[i % c.length] ^= 0x01;
  return c;
};

describe('Ed25519 verification', () => {
  it('goes through libsodium on this platform (its prebuilt addon loads)', () => {
    expect(ed25519().backend).toBe('libsodium');
  });

  it('answers as node:crypto does: signed bodies, tampered bodies and signatures, foreign keys, wrong lengths', () => {
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    const foreign = generateKeyPairSync('ed25519').publicKey;
    let checked = 0;
    for (let i = 0; i < 200; i++) {
      const body = randomBytes(1 + ((i * 37) % 900));
      const sig = sign(null, body, privateKey);
      const cases: Array<[typeof publicKey, Buffer, Buffer, boolean]> = [
        [publicKey, body, sig, true],
        [publicKey, flip(body, i), sig, false],
        [publicKey, body, flip(sig, i), false],
        [foreign, body, sig, false],
        [publicKey, body, sig.subarray(0, 63), false],
        [publicKey, body, Buffer.concat([sig, Buffer.alloc(1)]), false],
      ];
      for (const [key, b, s, want] of cases) {
        expect(viaNode(key, b, s)).toBe(want);
        expect(viaSodium(key, b, s)).toBe(want);
        checked++;
      }
    }
    expect(checked).toBe(1200);
  });

  it('refuses a non-canonical signature (S + L) as node:crypto does', () => {
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    const body = Buffer.from('{"nodeId":"n1"}');
    const sig = sign(null, body, privateKey);
    const s = BigInt(`0x${Buffer.from(sig.subarray(32)).reverse().toString('hex')}`) + L;
    const high = Buffer.from(s.toString(16).padStart(64, '0'), 'hex').reverse();
    const malleated = Buffer.concat([sig.subarray(0, 32), high]);
    expect(viaNode(publicKey, body, sig)).toBe(true);
    expect(viaNode(publicKey, body, malleated)).toBe(false);
    expect(viaSodium(publicKey, body, malleated)).toBe(false);
  });

  it('answers false, never throws, for a key whose raw bytes are not 32 (a request answered 401, not 500)', () => {
    const odd = { asymmetricKeyType: 'ed25519', export: () => ({ x: Buffer.alloc(31).toString('base64url') }) } as unknown as KeyObject;
    expect(viaSodium(odd, Buffer.from('{}'), Buffer.alloc(64))).toBe(false);
  });

  it('is the one the webhook signature check uses for an Ed25519 key', () => {
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    const body = Buffer.from('{"eventType":"NODE_STATUS_UPDATED","nodeId":"n1"}');
    const shared = ed25519();
    const used = shared.verify;
    let calls = 0;
    shared.verify = (...a) => {
      calls++;
      return used(...a);
    };
    try {
      expect(verifySignature(publicKey, body, sign(null, body, privateKey).toString('base64'))).toBe(true);
      expect(verifySignature(publicKey, flip(body, 3), sign(null, body, privateKey).toString('base64'))).toBe(false);
    } finally {
      shared.verify = used;
    }
    expect(calls).toBe(2);
  });
});
