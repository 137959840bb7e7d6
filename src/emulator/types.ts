import type { HostedNode, NodeStatus } from '../hosting/index.js';
import type { NodeFault, NodeWorld } from './node-api/index.js';
import type { CertAuthority } from './generate-cert.js';
import type { ServiceFault } from './service-faults.js';

/** A fault `/demo <fault> <node>` injects: in the node's API, or in the service's record of it. */
export type DemoFault = NodeFault | ServiceFault;

export type KeyType = 'ed25519' | 'p256' | 'secp256k1' | 'rsa';
export type FailableOperation = 'create' | 'start' | 'stop' | 'upgrade';

/** Fault injection. Mutable at run time: `emulator.faults.errorRate = 1`. */
export interface Faults {
  /** Delay before every answer (management API and node API), in ms. */
  latencyMs: number;
  /** Share of requests (0..1) answered 500. */
  errorRate: number;
  /** Answer a truncated JSON body (status 200 kept). */
  garbage: boolean;
  /** Share of webhook events (0..1) delivered twice. */
  webhookDuplicate: number;
  /** Share of webhook events (0..1) never delivered. */
  webhookDrop: number;
  /** The next such operation ends in FAILED (the entry is consumed). */
  failNext: Set<FailableOperation>;
  /** The service is down: connections are closed without an answer. */
  down: boolean;
  /** The next N requests are answered 429 with `Retry-After: retryAfterSec`. */
  rateLimitNext: number;
  /** Seconds sent in Retry-After with rateLimitNext (default 1). */
  retryAfterSec: number;
  /** The next N requests are answered 503 (deterministic counterpart of errorRate). */
  errorNext: number;
}

/** The node API world, implemented in ./node-api (contract of issue #2). */
export interface NodeWorldLike {
  addNode(nodeId: string, opts: { network: string; alias?: string; api?: 'f379330' | '6887cbf' }): void;
  removeNode(nodeId: string): void;
  /** The node now runs an image speaking `api`, and is locked (an upgrade). Optional for test doubles. */
  moveToImage?(nodeId: string, api: 'f379330' | '6887cbf'): void;
  handle(nodeId: string, method: 'GET' | 'POST', endpoint: string, body: unknown): Promise<{ status: number; body: unknown; raw?: string }>;
}

export interface EmulatorOptions {
  /** Default 0 (a free port). */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Management API bearer token. Default: random. */
  token?: string;
  /** Node API bearer token. Default: random. */
  nodeApiToken?: string;
  /** Account id used in invoke_url paths. Default: random. */
  userId?: string;
  /** Webhook signing key type. Default ed25519. */
  keyType?: KeyType;
  /** Time of STARTING->RUNNING, IN_PROGRESS->RUNNING and of a log export, in ms. Default 1500. */
  lifecycleDelayMs?: number;
  /** Webhook delivery attempts (default 5) and first backoff step (default 200 ms, doubled each retry). */
  webhookRetry?: { attempts?: number; baseDelayMs?: number };
  faults?: Partial<Faults>;
  /** 'demo' seeds alice (RUNNING), bob (RUNNING) and carol (PAUSED). Default 'none'. */
  seed?: 'demo' | 'none';
  /** Regtest funding of a new wallet, passed to the NodeWorld. */
  fundingSat?: number;
  /** Image version served by latest-rln-image and given to new nodes. Default v0.2.1. */
  latestImage?: string;
  /** Mine a block this long after a transaction enters the mempool (NodeWorld autoMineMs). Default: never (call world.mine()). */
  autoMineMs?: number;
  /** With seed 'demo': initialise and unlock alice and bob with this password (funded wallets). */
  demoPassword?: string;
  /**
   * Besides the `seed`, this many more nodes (`node-0001`, ...), RUNNING on the latest image, each
   * initialised and unlocked (with `demoPassword`, or `seed-password`): an account at scale, for benchmarks.
   */
  seedNodes?: number;
  /** A stand-in for the NodeWorld (tests of the routing); `Emulator.world` is then this object. */
  world?: NodeWorldLike;
  /**
   * The base of every node's invoke_url (default: the emulator's own address), e.g. a TLS server on
   * loopback that requires `generate-cert`'s client certificates and passes requests on to the emulator.
   */
  nodeApiBaseUrl?: string;
  /** The account's CA (default: a new one): given by a test that must issue a server certificate before the emulator starts. */
  certAuthority?: CertAuthority;
}

export interface Delivery {
  url: string;
  body: string;
  signature: string;
  /** HTTP status of the answer; undefined when the connection failed. */
  status?: number;
  /** 1 for the first attempt. */
  attempt: number;
  error?: string;
}

export interface Emulator {
  /** The faults `/demo <fault> <node>` can inject, each with what it does (the demo lists them from here). */
  nodeFaults: Readonly<Record<DemoFault, string>>;
  /** Injects one of `nodeFaults` into the node (its API's, or the service's record of it); returns what happened, in words. */
  fault(nodeId: string, fault: DemoFault): string;
  /** Base URL, e.g. http://127.0.0.1:39123 (no trailing slash). */
  url: string;
  /** The current management API token. */
  token: string;
  nodeApiToken: string;
  userId: string;
  faults: Faults;
  world: NodeWorld;
  close(): Promise<void>;
  /** Revokes the current token; the new one (given or random) is in `token`. */
  revokeToken(newToken?: string): void;
  /** Sets a node's status and emits a webhook. */
  setStatus(nodeId: string, status: NodeStatus): void;
  /**
   * Restarts a RUNNING (or FAILED) node as the service does: STARTING now, RUNNING after
   * `lifecycleDelayMs`, each with its status webhook; the node comes back with its wallet LOCKED.
   */
  restartNode(nodeId: string): void;
  /** Sends an arbitrary signed event to the node's webhook URL. */
  emitEvent(nodeId: string, payload: object): void;
  /** Signs bytes with the account key: base64 signature, as sent in X-Service-Signature. */
  sign(body: Buffer | string): string;
  publicKey: { pem: string; type: string };
  /** The account's CA: it signs `generate-cert`'s client certificates, and can issue a server certificate. */
  certAuthority: CertAuthority;
  /** Every webhook delivery attempt, in order (the most recent 10-20 thousand). */
  deliveries: Delivery[];
  /** Every request received (also those answered by a fault), in order (the most recent 10-20 thousand). */
  requests: Array<{ method: string; path: string }>;
  /** The most node API requests that were in flight at once to this node (arrived and not yet answered). */
  peakNodeRequests(nodeId: string): number;
  nodes(): HostedNode[];
  /** Resolves when no webhook delivery is pending (tests). */
  settled(): Promise<void>;
  /** Changes the image that latest-rln-image answers. */
  setLatestImage(version: string): void;
}
