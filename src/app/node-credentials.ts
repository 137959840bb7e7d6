/**
 * Which credentials the bot presents to a node's API, in this order: the node's entry in
 * NODE_CREDENTIALS_FILE (it wins: an operator wrote it), else the client certificate `node cert`
 * fetched from the service and kept (with NODE_API_TOKEN beside it, if set), else NODE_API_TOKEN.
 */
import { createHash } from 'node:crypto';
import { credentialsKeyBytes, type Config } from '../config.js';
import type { Logger } from '../log.js';
import type { HostingClient } from '../hosting/index.js';
import { createServiceCerts, loadNodeCredentials, type NodeCredentials, type ServiceCerts } from '../node-api/index.js';
import { createNodeCertStore, type AnyDb } from '../store/index.js';

/** The demo's sealing key when CREDENTIALS_KEY is not set: a documented demo value, like its password. */
const DEMO_CREDENTIALS_KEY = createHash('sha256').update('rln-chatops demo credentials key').digest();

export interface NodeCredentialSources {
  /** Asked at each node call: answers at once unless the kept certificate must be read again. */
  credentialsFor(node: { nodeId: string; name: string }): () => NodeCredentials | Promise<NodeCredentials>;
  /** The kept certificates; `inFile`: NODE_CREDENTIALS_FILE has an entry for the node (which wins over them). */
  certs: ServiceCerts & { inFile(node: { nodeId: string; name: string }): boolean };
}

export function nodeCredentialSources(o: {
  config: Config;
  db: AnyDb;
  hosting: HostingClient;
  nodeToken?: string;
  now: () => number;
  logger: Logger;
}): NodeCredentialSources {
  const file = loadNodeCredentials({ defaultToken: o.nodeToken, file: o.config.NODE_CREDENTIALS_FILE });
  const key = o.config.CREDENTIALS_KEY ? credentialsKeyBytes(o.config.CREDENTIALS_KEY) : o.config.demo ? DEMO_CREDENTIALS_KEY : undefined;
  const certs = createServiceCerts({
    store: createNodeCertStore(o.db),
    generate: (nodeId) => o.hosting.generateCert(nodeId),
    key,
    now: o.now,
    onUnreadable: (nodeId) =>
      o.logger.warn({ nodeId }, 'node cert: the kept private key does not open with this CREDENTIALS_KEY; the node is called without it'),
  });
  const token = file.fallback.kind === 'token' ? file.fallback.token : undefined;
  // The same object for the same kept certificate, so a client builds its transport again only when it changes.
  const withToken = new WeakMap<object, NodeCredentials>();
  const presented = (kept: NodeCredentials | undefined): NodeCredentials => {
    if (!kept) return file.fallback;
    let creds = withToken.get(kept);
    if (!creds) withToken.set(kept, (creds = { ...kept, ...(token ? { token } : {}) }));
    return creds;
  };
  return {
    certs: Object.assign(certs, { inFile: (node: { nodeId: string; name: string }) => file.fromFile(node) !== undefined }),
    credentialsFor: (node) => () => {
      const listed = file.fromFile(node);
      if (listed) return listed;
      const kept = certs.credentialsOf(node.nodeId);
      return kept instanceof Promise ? kept.then(presented) : presented(kept);
    },
  };
}
