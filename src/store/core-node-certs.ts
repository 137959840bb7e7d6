/**
 * Client certificates for node APIs that the bot fetched through the service (`node cert`), one per
 * node. The private key is stored sealed (AES-256-GCM under CREDENTIALS_KEY, by src/node-api's
 * service-certs.ts): this repository never sees it in clear.
 */
import type { AnyDb } from './database.js';

export interface NodeCertRow {
  nodeId: string;
  nodeName: string;
  /** PEM. */
  certificate: string;
  /** PEM; empty when the service gave none. */
  chain: string;
  /** The private key, sealed: `v1.<iv>.<tag>.<ciphertext>` (base64url). */
  sealedKey: string;
  /** SHA-256 of the certificate, as `AB:CD:…`. */
  fingerprint: string;
  fetchedBy: string;
  fetchedAt: number;
}

export interface NodeCertStore {
  /** Keeps a node's certificate, replacing the one before. */
  put(row: NodeCertRow): Promise<void>;
  get(nodeId: string): Promise<NodeCertRow | undefined>;
  /** Forgets a node's certificate; true when there was one. */
  remove(nodeId: string): Promise<boolean>;
}

const COLUMNS = `node_id AS "nodeId", node_name AS "nodeName", certificate, chain, sealed_key AS "sealedKey",
  fingerprint, fetched_by AS "fetchedBy", fetched_at AS "fetchedAt"`;

export function createNodeCertStore(db: AnyDb): NodeCertStore {
  return {
    async put(r) {
      await db.run(
        `INSERT INTO core_node_certs (node_id, node_name, certificate, chain, sealed_key, fingerprint, fetched_by, fetched_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (node_id) DO UPDATE SET node_name = excluded.node_name, certificate = excluded.certificate,
           chain = excluded.chain, sealed_key = excluded.sealed_key, fingerprint = excluded.fingerprint,
           fetched_by = excluded.fetched_by, fetched_at = excluded.fetched_at`,
        [r.nodeId, r.nodeName, r.certificate, r.chain, r.sealedKey, r.fingerprint, r.fetchedBy, r.fetchedAt],
      );
    },
    async get(nodeId) {
      const row = await db.get<NodeCertRow>(`SELECT ${COLUMNS} FROM core_node_certs WHERE node_id = ?`, [nodeId]);
      return row ? { ...row, fetchedAt: Number(row.fetchedAt) } : undefined;
    },
    async remove(nodeId) {
      return (await db.run('DELETE FROM core_node_certs WHERE node_id = ?', [nodeId])).changes > 0;
    },
  };
}
