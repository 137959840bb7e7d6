/**
 * `POST /api/nodes/{id}/generate-cert`: mTLS material for a node API, as the service's published
 * description shows it: `{ certificate, certificateChain, privateKey, publicKey }`, all PEM. The emulator
 * has one CA of its own and gives a new key and a client certificate it signs on each call (ECDSA P-256,
 * SHA-256), with a small DER writer:
 * Node's crypto signs and exports keys, but does not build certificates.
 */
import { createPrivateKey, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';

const tlv = (tag: number, body: Buffer): Buffer => {
  const n = body.length;
  const len = n < 0x80 ? Buffer.from([n]) : n < 0x100 ? Buffer.from([0x81, n]) : Buffer.from([0x82, n >> 8, n & 0xff]);
  return Buffer.concat([Buffer.from([tag]), len, body]);
};
const seq = (...parts: Buffer[]) => tlv(0x30, Buffer.concat(parts));
const set = (...parts: Buffer[]) => tlv(0x31, Buffer.concat(parts));
/**
 * A non-negative DER INTEGER of big-endian `bytes`, in its one valid encoding: no leading zero
 * byte unless the next has its high bit set (a random serial starting 00 0x-7x was refused by
 * OpenSSL, "illegal padding", one certificate in 512), and one added when the first has it.
 */
export const derInteger = (bytes: Buffer): Buffer => {
  let i = 0;
  while (i < bytes.length - 1 && bytes[i] === 0 && !(bytes[i + 1] & 0x80)) i++;
  const v = bytes.subarray(i);
  return tlv(0x02, v[0] & 0x80 ? Buffer.concat([Buffer.from([0]), v]) : v);
};
const int = derInteger;
const bits = (bytes: Buffer) => tlv(0x03, Buffer.concat([Buffer.from([0]), bytes]));
const utf8 = (text: string) => tlv(0x0c, Buffer.from(text, 'utf8'));
const explicit = (n: number, body: Buffer) => tlv(0xa0 + n, body);

function oid(dotted: string): Buffer {
  const [a, b, ...rest] = dotted.split('.').map(Number);
  const out = [40 * a + b];
  for (const v of rest) {
    const chunk = [v & 0x7f];
    for (let x = v >> 7; x > 0; x >>= 7) chunk.unshift((x & 0x7f) | 0x80);
    out.push(...chunk);
  }
  return tlv(0x06, Buffer.from(out));
}

function utcTime(d: Date): Buffer {
  const p = (n: number) => String(n).padStart(2, '0');
  return tlv(
    0x17,
    Buffer.from(
      `${p(d.getUTCFullYear() % 100)}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}Z`,
    ),
  );
}

const ECDSA_SHA256 = seq(oid('1.2.840.10045.4.3.2'));
const name = (cn: string) => seq(set(seq(oid('2.5.4.3'), utf8(cn))));
const pem = (label: string, der: Buffer) =>
  `-----BEGIN ${label}-----\n${der.toString('base64').replace(/.{1,64}/g, '$&\n')}-----END ${label}-----\n`;

/** subjectAltName: DNS names and IPv4 addresses (what a TLS client checks a server's name against). */
function altNames(hosts: string[]): Buffer {
  const names = hosts.map((h) =>
    /^\d+\.\d+\.\d+\.\d+$/.test(h) ? tlv(0x87, Buffer.from(h.split('.').map(Number))) : tlv(0x82, Buffer.from(h, 'ascii')),
  );
  return seq(oid('2.5.29.17'), tlv(0x04, seq(...names)));
}

/** A certificate for `subject`'s public key, signed by `issuerKey` in `issuer`'s name. */
function certificate(o: {
  subject: string;
  issuer: string;
  publicKey: KeyObject;
  issuerKey: KeyObject;
  ca: boolean;
  hosts?: string[];
}): Buffer {
  const now = Date.now();
  const extensions = o.ca
    ? [explicit(3, seq(seq(oid('2.5.29.19'), tlv(0x01, Buffer.from([0xff])), tlv(0x04, seq(tlv(0x01, Buffer.from([0xff])))))))]
    : o.hosts?.length
      ? [explicit(3, seq(altNames(o.hosts)))]
      : [];
  const tbs = seq(
    explicit(0, int(Buffer.from([2]))),
    int(randomBytes(16)),
    ECDSA_SHA256,
    name(o.issuer),
    seq(utcTime(new Date(now - 60_000)), utcTime(new Date(now + 365 * 86_400_000))),
    name(o.subject),
    o.publicKey.export({ type: 'spki', format: 'der' }),
    ...extensions,
  );
  return seq(tbs, ECDSA_SHA256, bits(sign('sha256', tbs, o.issuerKey)));
}

export interface ClientCertMaterial {
  certificate: string;
  certificateChain: string;
  privateKey: string;
  publicKey: string;
}

/**
 * The emulated account's CA: one per emulator, so a node API behind mTLS (a test's TLS server) can
 * require the client certificates `generate-cert` gives, and show a server certificate of its own.
 */
export interface CertAuthority {
  /** The CA's certificate (PEM): what `certificateChain` holds, and what verifies the client certificates. */
  certificate: string;
  /** A new key pair and a client certificate for it (what `generate-cert` answers). */
  issueClient(cn: string): ClientCertMaterial;
  /** A server certificate for these names or IPv4 addresses, with its key (PEM). */
  issueServer(hosts: string[]): { certificate: string; privateKey: string };
}

export function createCertAuthority(subject = 'Emulated node API CA'): CertAuthority {
  const ca = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const caKey = createPrivateKey(ca.privateKey.export({ type: 'pkcs8', format: 'pem' }));
  const caCert = pem('CERTIFICATE', certificate({ subject, issuer: subject, publicKey: ca.publicKey, issuerKey: caKey, ca: true }));
  const issue = (cn: string, hosts?: string[]) => {
    const pair = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    const der = certificate({ subject: cn, issuer: subject, publicKey: pair.publicKey, issuerKey: caKey, ca: false, hosts });
    return { pair, certificate: pem('CERTIFICATE', der) };
  };
  return {
    certificate: caCert,
    issueClient(cn) {
      const { pair, certificate: cert } = issue(cn);
      return {
        certificate: cert,
        certificateChain: caCert,
        privateKey: pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
        publicKey: pair.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
      };
    },
    issueServer(hosts) {
      const { pair, certificate: cert } = issue(hosts[0] ?? 'localhost', hosts);
      return { certificate: cert, privateKey: pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
    },
  };
}
