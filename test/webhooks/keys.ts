// Test key pairs of every supported kind, and every encoding of their public halves.
import { constants, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';

export type Kind = 'ed25519' | 'p256' | 'secp256k1' | 'rsa';

export interface TestKey {
  kind: Kind;
  privateKey: KeyObject;
  publicKey: KeyObject;
  /** Named encodings of the public key, as a service could serve them. */
  encodings: Record<string, unknown>;
  /** Named signature makers over a body. */
  signers: Record<string, (body: Buffer) => string>;
}

const b64 = (b: Buffer) => b.toString('base64');
const b64u = (b: Buffer) => b.toString('base64url');
const hex = (b: Buffer) => b.toString('hex');

export function makeKey(kind: Kind): TestKey {
  const pair =
    kind === 'ed25519'
      ? generateKeyPairSync('ed25519')
      : kind === 'rsa'
        ? generateKeyPairSync('rsa', { modulusLength: 2048 })
        : generateKeyPairSync('ec', { namedCurve: kind === 'p256' ? 'prime256v1' : 'secp256k1' });
  const { privateKey, publicKey } = pair;
  const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const der = publicKey.export({ type: 'spki', format: 'der' });
  const jwk = publicKey.export({ format: 'jwk' });
  const encodings: Record<string, unknown> = {
    'PEM (SPKI)': pem,
    'DER SPKI base64': b64(der),
    JWK: jwk,
    'JSON {publicKey: PEM}': { publicKey: pem, algorithm: 'whatever' },
    'JSON {data: {key: PEM}}': { data: { key: pem } },
    'JSON {jwk}': { jwk },
    'JSON text of {publicKey}': JSON.stringify({ publicKey: pem }),
    'PEM with escaped newlines': pem.replace(/\n/g, '\\n'),
  };
  const signers: Record<string, (body: Buffer) => string> = {};
  if (kind === 'ed25519') {
    const raw = Buffer.from(jwk.x!, 'base64url');
    encodings['raw hex'] = hex(raw);
    encodings['raw base64'] = b64(raw);
    encodings['JSON {key: raw base64}'] = { key: b64(raw) };
    const s = (body: Buffer) => sign(null, body, privateKey);
    signers.base64 = (b) => b64(s(b));
    signers.base64url = (b) => b64u(s(b));
    signers.hex = (b) => hex(s(b));
  } else if (kind === 'rsa') {
    encodings['PEM (PKCS#1)'] = publicKey.export({ type: 'pkcs1', format: 'pem' }).toString();
    const v15 = (body: Buffer) => sign('sha256', body, privateKey);
    const pss = (body: Buffer) => sign('sha256', body, { key: privateKey, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 });
    signers['PKCS#1 v1.5 base64'] = (b) => b64(v15(b));
    signers['PKCS#1 v1.5 hex'] = (b) => hex(v15(b));
    signers['PSS base64url'] = (b) => b64u(pss(b));
    signers['PSS base64'] = (b) => b64(pss(b));
  } else {
    const x = Buffer.from(jwk.x!, 'base64url');
    const y = Buffer.from(jwk.y!, 'base64url');
    const uncompressed = Buffer.concat([Buffer.from([4]), x, y]);
    const compressed = Buffer.concat([Buffer.from([(y[y.length - 1] & 1) === 1 ? 3 : 2]), x]);
    encodings['raw uncompressed hex'] = hex(uncompressed);
    encodings['raw compressed base64'] = b64(compressed);
    encodings['JSON {data: {publicKey: raw hex}}'] = { data: { publicKey: hex(compressed) } };
    const derSig = (body: Buffer) => sign('sha256', body, privateKey);
    const rawSig = (body: Buffer) => sign('sha256', body, { key: privateKey, dsaEncoding: 'ieee-p1363' });
    signers['DER base64'] = (b) => b64(derSig(b));
    signers['DER hex'] = (b) => hex(derSig(b));
    signers['raw r||s base64url'] = (b) => b64u(rawSig(b));
    signers['raw r||s hex'] = (b) => hex(rawSig(b));
  }
  return { kind, privateKey, publicKey, encodings, signers };
}
