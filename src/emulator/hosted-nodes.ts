import { randomUUID } from 'node:crypto';
import type { Build, HostedNode, NodeStatus } from '../hosting/index.js';
import { HttpProblem } from './http-problem.js';
import type { NodeWorld } from './node-api/index.js';
import type { FailableOperation, Faults } from './types.js';
import type { WebhookSender } from './webhook-sender.js';

/** An RLN image the emulator runs: its version, its RLN commit and the node API generation it speaks. */
export interface RlnImage {
  version: string;
  commit: string;
  api: 'f379330' | '6887cbf';
}

/** RLN's commits of the two generations (RGB-Tools/rgb-lightning-node). */
export const COMMIT_F379330 = 'f37933079be958908ebc7b24c604bd5558d24865';
export const COMMIT_6887CBF = '6887cbf95eaa0208a42ff73b41bd4b3959655bf4';

export interface NodeRecord {
  nodeId: string;
  name: string;
  network: 'regtest' | 'testnet';
  status: NodeStatus;
  settings: { webhookUrl?: string };
  builds: Build[];
  imageVersion: string;
  createdAt: string;
  /** Set once /init (or /restore) succeeded through the node API. */
  initialized: boolean;
  /** The pending lifecycle step (STARTING->RUNNING, IN_PROGRESS->RUNNING), cancelled by the next operation. */
  pending?: NodeJS.Timeout;
}

export interface LogTask {
  taskId: string;
  nodeId: string;
  readyAt: number;
  polled?: boolean;
  files: Map<string, string>;
}

/**
 * The hosting service's account: its nodes, their lifecycle (status changes with their
 * webhooks, builds), and log export tasks. The management routes act on it.
 */
export class HostedNodes {
  readonly nodes = new Map<string, NodeRecord>();
  readonly tasks = new Map<string, LogTask>();
  private readonly timers = new Set<NodeJS.Timeout>();
  /** Set once the server listens. */
  baseUrl = '';
  /** The base of invoke_url when not the emulator's own address (`nodeApiBaseUrl`). */
  nodeApiBaseUrl?: string;
  /** The image latest-rln-image answers, given to new nodes; it speaks 6887cbf. */
  private latest: string;
  /** Every image version seen, with its commit and generation. */
  private readonly images = new Map<string, RlnImage>();

  constructor(
    private readonly o: {
      world: NodeWorld;
      sender: WebhookSender;
      faults: Faults;
      userId: string;
      /** Time of STARTING->RUNNING and IN_PROGRESS->RUNNING, in ms. */
      delayMs: number;
      latestImage: string;
    },
  ) {
    this.latest = o.latestImage;
    this.images.set(o.latestImage, { version: o.latestImage, commit: COMMIT_6887CBF, api: '6887cbf' });
  }

  get latestImage(): string {
    return this.latest;
  }

  /** A new latest image (it speaks 6887cbf); the images seen before keep their generation. */
  set latestImage(version: string) {
    this.latest = version;
    if (!this.images.has(version)) this.images.set(version, { version, commit: COMMIT_6887CBF, api: '6887cbf' });
  }

  /** An image's commit and generation: a version not seen as the latest is an older image, speaking f379330. */
  image(version: string): RlnImage {
    return this.images.get(version) ?? { version, commit: COMMIT_F379330, api: 'f379330' };
  }

  private later(ms: number, fn: () => void): NodeJS.Timeout {
    const t = setTimeout(() => {
      this.timers.delete(t);
      fn();
    }, ms);
    this.timers.add(t);
    return t;
  }

  cancelPending(n: NodeRecord): void {
    if (n.pending) {
      clearTimeout(n.pending);
      this.timers.delete(n.pending);
      n.pending = undefined;
    }
  }

  /** Cancels every pending lifecycle step (on close). */
  clearTimers(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  view(n: NodeRecord): HostedNode {
    return {
      nodeId: n.nodeId,
      name: n.name,
      network: n.network,
      status: n.status,
      initialized: n.initialized,
      invoke_url: `${this.nodeApiBaseUrl ?? this.baseUrl}/nodes/${this.o.userId}/${n.nodeId}`,
      settings: { ...n.settings },
      builds: n.builds.map((b) => ({ ...b })),
      // Extra fields the public API reference shows: clients must keep, not reject, them.
      imageVersion: n.imageVersion,
      // The RLN commit of the node's image, which the service's docs compare with latest-rln-image.
      rln_commit_id: this.image(n.imageVersion).commit,
      createdAt: n.createdAt,
      port: 443,
      protocol: 'https',
      peerDNS: `${n.nodeId}.peer.emulator.invalid`,
      peerPort: 9735,
    };
  }

  views(): HostedNode[] {
    return [...this.nodes.values()].map((n) => this.view(n));
  }

  emit(n: NodeRecord, payload: object): void {
    if (n.settings.webhookUrl) this.o.sender.send(n.nodeId, n.settings.webhookUrl, payload);
  }

  setStatus(n: NodeRecord, status: NodeStatus): void {
    n.status = status;
    this.emit(n, {
      eventType: 'NODE_STATUS_UPDATED',
      eventTimestamp: new Date().toISOString(),
      details: { nodeId: n.nodeId, status },
      nodeId: n.nodeId,
    });
  }

  /** Whether the fault injection says this operation fails (the entry is consumed). */
  takeFailure(op: FailableOperation): boolean {
    return this.o.faults.failNext.delete(op);
  }

  /** STARTING (or IN_PROGRESS) now, then RUNNING, or FAILED when the fault says so. */
  runTransition(n: NodeRecord, first: NodeStatus, failed: boolean, onEnd?: (ok: boolean) => void): void {
    this.cancelPending(n);
    this.setStatus(n, first);
    n.pending = this.later(this.o.delayMs, () => {
      n.pending = undefined;
      if (!this.nodes.has(n.nodeId)) return;
      onEnd?.(!failed);
      this.setStatus(n, failed ? 'FAILED' : 'RUNNING');
    });
  }

  newBuild(n: NodeRecord, action: string, extra: Partial<Build> = {}): Build {
    const build: Build = {
      buildNumber: n.builds.length + 1,
      buildStatus: 'IN_PROGRESS',
      buildComplete: false,
      timestamp: new Date().toISOString(),
      id: randomUUID(),
      action,
      currentPhase: 'BUILD',
      imageVersion: this.latestImage,
      ...extra,
    };
    n.builds.push(build);
    return build;
  }

  finishBuild(b: Build, ok: boolean): void {
    // The service's published description: SUCCESS, FAILURE or IN_PROGRESS.
    b.buildStatus = ok ? 'SUCCESS' : 'FAILURE';
    b.buildComplete = true;
    b.currentPhase = 'COMPLETED';
  }

  /** A node on the latest image (the demo's seeds move to an older one: `seedDemoNodes`). */
  add(name: string, network: 'regtest' | 'testnet', webhookUrl?: string, imageVersion = this.latest): NodeRecord {
    const n: NodeRecord = {
      nodeId: randomUUID(),
      name,
      network,
      status: 'STARTING',
      settings: webhookUrl ? { webhookUrl } : {},
      builds: [],
      imageVersion,
      createdAt: new Date().toISOString(),
      initialized: false,
    };
    this.nodes.set(n.nodeId, n);
    this.o.world.addNode(n.nodeId, { network, alias: name, api: this.image(imageVersion).api });
    return n;
  }

  /** The node, or a 404 problem. */
  find(id: string): NodeRecord {
    const n = this.nodes.get(id);
    if (!n) throw new HttpProblem(404, `Node ${JSON.stringify(id)} not found`);
    return n;
  }

  /**
   * The node's RLN process stopped (a stop, a failure, the start of a stopped or failed node): RLN
   * always comes back locked after its process restarts, so the wallet is locked until someone
   * unlocks it. A stand-in world without `lockNode` (routing tests) is left alone.
   */
  processStopped(n: NodeRecord): void {
    const w = this.o.world as Partial<Pick<NodeWorld, 'lockNode' | 'hasNode'>>;
    if (w.lockNode && w.hasNode?.(n.nodeId)) w.lockNode(n.nodeId);
  }

  /** The node now runs this image: it answers in the image's generation, and comes back locked. */
  moveToImage(n: NodeRecord, version: string): void {
    n.imageVersion = version;
    this.o.world.moveToImage?.(n.nodeId, this.image(version).api);
  }

  /**
   * Destroys a node as the service's description shows: DESTROING at once (its node API goes), then
   * DESTROYED after the delay, when it leaves the account's list.
   */
  destroy(n: NodeRecord): void {
    this.cancelPending(n);
    this.o.world.removeNode(n.nodeId);
    this.setStatus(n, 'DESTROING');
    n.pending = this.later(this.o.delayMs, () => {
      n.pending = undefined;
      this.setStatus(n, 'DESTROYED');
      this.remove(n);
    });
  }

  /** Destroys a node: its pending step, its node API and its log exports go with it. */
  remove(n: NodeRecord): void {
    this.cancelPending(n);
    this.nodes.delete(n.nodeId);
    this.o.world.removeNode(n.nodeId);
    for (const [taskId, t] of this.tasks) if (t.nodeId === n.nodeId) this.tasks.delete(taskId);
  }
}
