import { randomUUID } from 'node:crypto';
import type { Build, HostedNode, NodeStatus } from '../hosting/index.js';
import { HttpProblem } from './http-problem.js';
import type { NodeWorld } from './node-api/index.js';
import type { FailableOperation, Faults } from './types.js';
import type { WebhookSender } from './webhook-sender.js';

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
  /** The image latest-rln-image answers, given to new nodes. */
  latestImage: string;

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
    this.latestImage = o.latestImage;
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
      invoke_url: `${this.baseUrl}/nodes/${this.o.userId}/${n.nodeId}`,
      settings: { ...n.settings },
      builds: n.builds.map((b) => ({ ...b })),
      // Extra fields the public API reference shows: clients must keep, not reject, them.
      imageVersion: n.imageVersion,
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
    b.buildStatus = ok ? 'SUCCESS' : 'FAILED';
    b.buildComplete = true;
    b.currentPhase = 'COMPLETED';
  }

  add(name: string, network: 'regtest' | 'testnet', webhookUrl?: string): NodeRecord {
    const n: NodeRecord = {
      nodeId: randomUUID(),
      name,
      network,
      status: 'STARTING',
      settings: webhookUrl ? { webhookUrl } : {},
      builds: [],
      imageVersion: this.latestImage,
      createdAt: new Date().toISOString(),
      initialized: false,
    };
    this.nodes.set(n.nodeId, n);
    this.o.world.addNode(n.nodeId, { network, alias: name });
    return n;
  }

  /** The node, or a 404 problem. */
  find(id: string): NodeRecord {
    const n = this.nodes.get(id);
    if (!n) throw new HttpProblem(404, `Node ${JSON.stringify(id)} not found`);
    return n;
  }

  /** Destroys a node: its pending step, its node API and its log exports go with it. */
  remove(n: NodeRecord): void {
    this.cancelPending(n);
    this.nodes.delete(n.nodeId);
    this.o.world.removeNode(n.nodeId);
    for (const [taskId, t] of this.tasks) if (t.nodeId === n.nodeId) this.tasks.delete(taskId);
  }
}
