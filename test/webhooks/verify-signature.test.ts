import { describe, expect, it } from 'vitest';
import { parsePublicKey, parsePublicKeys, PublicKeyError, verifySignature, decodeSignature } from '../../src/webhooks/index.js';
import { makeKey, type Kind } from './keys.js';

const KINDS: Kind[] = ['ed25519', 'p256', 'secp256k1', 'rsa'];
const body = Buffer.from(JSON.stringify({ eventType: 'NODE_STATUS_UPDATED', nodeId: 'n1', details: { nodeId: 'n1', status: 'FAILED' } }));

describe.each(KINDS)('%s webhook keys', (kind) => {
  const key = makeKey(kind);
  const foreign = makeKey(kind);

  it.each(Object.keys(key.encodings))('reads the public key given as %s', (name) => {
    const keys = parsePublicKeys(key.encodings[name]);
    expect(keys.length).toBeGreaterThan(0);
    const spki = key.publicKey.export({ type: 'spki', format: 'der' });
    expect(keys.some((k) => k.export({ type: 'spki', format: 'der' }).equals(spki))).toBe(true);
  });

  it.each(Object.keys(key.signers))('verifies a %s signature over the exact body, with every key encoding', (signer) => {
    const sig = key.signers[signer](body);
    for (const enc of Object.values(key.encodings)) expect(verifySignature(parsePublicKeys(enc), body, sig)).toBe(true);
  });

  it('accepts one valid signature among several (key rotation) and a scheme prefix', () => {
    const sig = Object.values(key.signers)[0](body);
    const other = Object.values(foreign.signers)[0](body);
    expect(verifySignature(key.publicKey, body, `${other},${sig}`)).toBe(true);
    expect(verifySignature(key.publicKey, body, `t=1700000000,v1=${sig}`)).toBe(true);
    expect(verifySignature(key.publicKey, body, `${other}, ${other}`)).toBe(false);
  });

  it('refuses a tampered body, a foreign key and garbage', () => {
    for (const signer of Object.values(key.signers)) {
      const sig = signer(body);
      const tampered = Buffer.from(body.toString().replace('FAILED', 'RUNNING'));
      expect(verifySignature(key.publicKey, tampered, sig)).toBe(false);
      expect(verifySignature(foreign.publicKey, body, sig)).toBe(false);
    }
    expect(verifySignature(key.publicKey, body, 'not a signature!')).toBe(false);
    expect(verifySignature(key.publicKey, body, '')).toBe(false);
  });
});

describe('key parsing edge cases', () => {
  it('says what it got when nothing is a key, without echoing it', () => {
    expect(() => parsePublicKey({ foo: 'bar' })).toThrow(PublicKeyError);
    expect(() => parsePublicKey('zz-not-a-key-zz')).toThrow(/not in a known format/);
    expect(() => parsePublicKey(null)).toThrow(/nothing was given/);
  });

  it('keeps every EC curve candidate a bare point fits, in a fixed order', () => {
    const k = makeKey('p256');
    const keys = parsePublicKeys(k.encodings['raw uncompressed hex']);
    expect(keys[0].asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
    const k1 = makeKey('secp256k1');
    const keys1 = parsePublicKeys(k1.encodings['raw compressed base64']);
    expect(keys1.map((x) => x.asymmetricKeyDetails?.namedCurve)).toContain('secp256k1');
  });

  it('decodes a signature as hex, base64 and base64url and strips a scheme prefix', () => {
    expect(decodeSignature('sha256=00ff00ff00ff').some((b) => b.equals(Buffer.from('00ff00ff00ff', 'hex')))).toBe(true);
    expect(decodeSignature('-_-_').some((b) => b.equals(Buffer.from('-_-_', 'base64url')))).toBe(true);
    expect(decodeSignature('+/+/').some((b) => b.equals(Buffer.from('+/+/', 'base64')))).toBe(true);
  });
});

describe('an Ed25519 signature in standard base64 (the usual header)', () => {
  const key = makeKey('ed25519');
  const keys = parsePublicKeys(key.encodings[Object.keys(key.encodings)[0]]);
  // A body whose signature's base64 holds a `+` or a `/`, so its base64url spelling differs.
  let signed = body;
  let sig = '';
  for (let i = 0; !/[+/]/.test(sig); i++) {
    signed = Buffer.concat([body, Buffer.from(` ${i}`)]);
    sig = key.signers.base64(signed);
  }

  it('verifies it, and the same bytes spelled otherwise', () => {
    expect(sig).toMatch(/^[A-Za-z0-9+/]{86}==$/);
    expect(verifySignature(keys, signed, sig)).toBe(true);
    // base64url with its padding: 88 characters and `==`, but not standard base64.
    expect(verifySignature(keys, signed, sig.replaceAll('+', '-').replaceAll('/', '_'))).toBe(true);
    expect(verifySignature(keys, signed, `${sig},${sig}`)).toBe(true);
  });

  it('refuses 88 characters ending in == that are not its signature', () => {
    expect(verifySignature(keys, signed, `${'?'.repeat(86)}==`)).toBe(false);
    expect(verifySignature(keys, signed, `${sig.slice(0, 40)}é${sig.slice(41)}`)).toBe(false);
    expect(verifySignature(keys, signed, `${sig.slice(0, 40)}${sig[40] === 'A' ? 'B' : 'A'}${sig.slice(41)}`)).toBe(false);
    expect(verifySignature(keys, body, sig)).toBe(false);
  });
});
