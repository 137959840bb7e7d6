/**
 * mTLS material from the service (issue 25, item 6): `node cert` has the bot ask the service's
 * `generate-cert` for a node's client certificate and keep it for its own calls to that node.
 *
 * The private key goes from the service's answer straight into the bot's credential store: the
 * database row of the node (src/store core-node-certs.ts), sealed with AES-256-GCM under
 * CREDENTIALS_KEY (a fresh 12-byte IV per key; the node id is the additional data, so a sealed
 * key moved to another node's row does not open). It is registered as a secret (masked in any log
 * line), never returned to a command, never put in a message or an audit row. What a command may
 * show is the certificate's public facts: subject, issuer, SHA-256 fingerprint, expiry.
 *
 * A replica reads a node's row when it first calls the node and again after `cacheMs`, so one
 * fetched on another replica is used there within that time.
 */
import { createCipheriv, createDecipheriv, createPrivateKey, randomBytes, X509Certificate } from 'node:crypto';
import type { NodeCertRow, NodeCertStore } from '../store/index.js';
import { registerSecret } from '../log.js';
import type { NodeCredentials } from './load-node-credentials.js';

export type ServiceMtls = Extract<NodeCredentials, { kind: 'service-mtls' }>;

/** The public facts of a kept certificate: what a message may show. */
export interface CertFacts {
  subject: string;
  issuer: string;
  /** SHA-256, `AB:CD:…`. */
  fingerprint: string;
  validTo: string;
  /** The certificate kept before this one, by fingerprint (a fetch replaces it). */
  replaced?: string;
}

export interface ServiceCerts {
  /** Whether there is a key to seal private keys with (CREDENTIALS_KEY, or the demo's own). */
  readonly canKeep: boolean;
  /** Fetches new material for a node through the service and keeps it; the private key is never returned. */
  fetchAndKeep(node: { nodeId: string; name: string }, by: string): Promise<CertFacts>;
  /** The certificate kept for a node (public facts), if any. */
  kept(nodeId: string): Promise<CertFacts | undefined>;
  /**
   * The client credentials kept for a node, if any and readable with this key: at once when its row
   * was read within `cacheMs` (every node call asks), else after reading it.
   */
  credentialsOf(nodeId: string): ServiceMtls | undefined | Promise<ServiceMtls | undefined>;
  /**
   * Forgets a node's certificate and key: this replica's calls to the node present none from now
   * on, other replicas' once their cached row is older than `cacheMs`. The certificate forgotten, if any.
   */
  forget(nodeId: string): Promise<CertFacts | undefined>;
}

export interface ServiceCertsOptions {
  store: NodeCertStore;
  /** The service's `generate-cert` for a node. */
  generate(nodeId: string): Promise<{ certificate: string; certificateChain?: string; privateKey: string }>;
  /** 32 bytes; absent: nothing can be kept. */
  key?: Buffer;
  now(): number;
  /** How long a node's row is trusted before it is read again (default 30 s). */
  cacheMs?: number;
  /** A kept key that does not open (CREDENTIALS_KEY changed): told once per row; the node is called without it. */
  onUnreadable?(nodeId: string): void;
}

const b64 = (b: Buffer) => b.toString('base64url');

/** Seals `text` under `key`, bound to `aad`: `v1.<iv>.<tag>.<ciphertext>`. */
export function sealSecret(key: Buffer, aad: string, text: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const sealed = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
  return ['v1', b64(iv), b64(cipher.getAuthTag()), b64(sealed)].join('.');
}

/** Opens what sealSecret sealed; throws when the key, the additional data or the text is not the one sealed. */
export function openSecret(key: Buffer, aad: string, sealed: string): string {
  const [version, iv, tag, body] = sealed.split('.');
  if (version !== 'v1' || !iv || !tag || body === undefined) throw new Error('not a sealed value of this version');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(aad, 'utf8'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
}

function factsOf(row: Pick<NodeCertRow, 'certificate' | 'fingerprint'>): CertFacts {
  const x = new X509Certificate(row.certificate);
  return {
    subject: x.subject.replace(/\n/g, ', '),
    issuer: x.issuer.replace(/\n/g, ', '),
    fingerprint: row.fingerprint,
    validTo: x.validTo,
  };
}

export function createServiceCerts(o: ServiceCertsOptions): ServiceCerts {
  const cacheMs = o.cacheMs ?? 30_000;
  /** Per node: when its row was read, the credentials it gave, and its sealed key (to tell the same row read again). */
  const cache = new Map<string, { at: number; creds?: ServiceMtls; sealedKey?: string }>();
  const unreadable = new Set<string>();

  function credentialsOfRow(row: NodeCertRow): ServiceMtls | undefined {
    if (!o.key) return undefined;
    try {
      const key = openSecret(o.key, row.nodeId, row.sealedKey);
      registerSecret(key);
      return { kind: 'service-mtls', certificate: row.certificate, ...(row.chain ? { chain: row.chain } : {}), key };
    } catch {
      const mark = `${row.nodeId}|${row.fingerprint}`;
      if (!unreadable.has(mark)) {
        unreadable.add(mark);
        o.onUnreadable?.(row.nodeId);
      }
      return undefined;
    }
  }

  /** The node's row read afresh, and cached. */
  async function readCredentials(
    nodeId: string,
    hit: { creds?: ServiceMtls; sealedKey?: string } | undefined,
  ): Promise<ServiceMtls | undefined> {
    const row = await o.store.get(nodeId);
    // The same row as before gives the same credentials object: a client builds its transport (a
    // TLS dispatcher, its connections) again only when they change, not each time the row is read.
    const creds = row && hit?.creds && hit.sealedKey === row.sealedKey ? hit.creds : row ? credentialsOfRow(row) : undefined;
    // Bounded by dropping the entry read longest ago (a Map keeps insertion order), not all of them:
    // clearing would give every node new credentials objects, and so new transports.
    cache.delete(nodeId);
    if (cache.size >= 5_000) cache.delete(cache.keys().next().value!);
    cache.set(nodeId, { at: o.now(), creds, sealedKey: row?.sealedKey });
    return creds;
  }

  return {
    canKeep: Boolean(o.key),

    async fetchAndKeep(node, by) {
      if (!o.key) throw new Error('no CREDENTIALS_KEY to seal a private key with');
      const material = await o.generate(node.nodeId);
      registerSecret(material.privateKey);
      let cert: X509Certificate;
      try {
        cert = new X509Certificate(material.certificate);
      } catch {
        throw new Error(`the service's certificate for ${node.name} cannot be read (not a PEM X.509 certificate)`);
      }
      let matches: boolean;
      try {
        matches = cert.checkPrivateKey(createPrivateKey(material.privateKey));
      } catch {
        matches = false;
      }
      if (!matches) throw new Error(`the service's certificate for ${node.name} does not match the private key it came with`);
      const before = await o.store.get(node.nodeId);
      const row: NodeCertRow = {
        nodeId: node.nodeId,
        nodeName: node.name,
        certificate: material.certificate,
        chain: material.certificateChain ?? '',
        sealedKey: sealSecret(o.key, node.nodeId, material.privateKey),
        fingerprint: cert.fingerprint256,
        fetchedBy: by,
        fetchedAt: o.now(),
      };
      await o.store.put(row);
      cache.set(node.nodeId, { at: o.now(), creds: credentialsOfRow(row), sealedKey: row.sealedKey });
      return { ...factsOf(row), ...(before ? { replaced: before.fingerprint } : {}) };
    },

    async kept(nodeId) {
      const row = await o.store.get(nodeId);
      return row ? factsOf(row) : undefined;
    },

    async forget(nodeId) {
      const row = await o.store.get(nodeId);
      if (row) await o.store.remove(nodeId);
      cache.set(nodeId, { at: o.now(), creds: undefined });
      return row ? factsOf(row) : undefined;
    },

    credentialsOf(nodeId) {
      const hit = cache.get(nodeId);
      if (hit && o.now() - hit.at < cacheMs) return hit.creds;
      return readCredentials(nodeId, hit);
    },
  };
}
