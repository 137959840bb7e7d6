/**
 * At most a few requests in flight to one node, whoever sends them: a report's reads, the
 * dashboard, a command, the activity poller and the upgrade follower all go through the node's
 * one gate (NODE_CALLS_PER_NODE, default 4). The call scheduler bounds pieces of work (each may
 * send several requests) and the poller bounds its own polls; neither saw the other, so a report
 * and a poll of one node could have eight or more requests on it at once.
 *
 * A request takes a turn before it is sent and gives it back once its answer is read (a retry's
 * delay holds none). Turns go in the order asked. A request that cannot get one within its wait
 * (what is left of its deadline) is not sent.
 */

/** No turn came within the wait: the node's earlier requests were all still unanswered. */
export class GateWaitTimeout extends Error {
  override readonly name = 'GateWaitTimeout';
  constructor(
    readonly waitedMs: number,
    readonly limit: number,
  ) {
    super(`no turn within ${waitedMs} ms: ${limit} requests to the node were in flight`);
  }
}

interface Waiter {
  give(release: () => void): void;
  timer: NodeJS.Timeout;
}

/** One node's turns. */
export class NodeGate {
  private running = 0;
  private readonly waiting: Waiter[] = [];

  constructor(readonly limit: number) {}

  /** Requests in flight now, and waiting for a turn. */
  get inFlight(): number {
    return this.running;
  }
  get queued(): number {
    return this.waiting.length;
  }
  /** No request holds or waits for a turn. */
  get idle(): boolean {
    return this.running === 0 && this.waiting.length === 0;
  }

  /** A turn: its release at once when one is free, else a promise of it, rejected with GateWaitTimeout after `waitMs`. */
  acquire(waitMs: number): (() => void) | Promise<() => void> {
    if (this.running < this.limit) {
      this.running++;
      return this.releaser();
    }
    return new Promise<() => void>((resolve, reject) => {
      const waiter: Waiter = {
        give: resolve,
        timer: setTimeout(
          () => {
            const at = this.waiting.indexOf(waiter);
            if (at >= 0) this.waiting.splice(at, 1);
            reject(new GateWaitTimeout(Math.round(waitMs), this.limit));
          },
          Math.max(1, Math.ceil(waitMs)),
        ),
      };
      this.waiting.push(waiter);
    });
  }

  /** Gives the turn back once only: a turn given back goes straight to the next waiting request, so none slips in between. */
  private releaser(): () => void {
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const next = this.waiting.shift();
      if (!next) {
        this.running--;
        return;
      }
      clearTimeout(next.timer);
      next.give(this.releaser());
    };
  }
}

/** Gates are kept for this many nodes at most; past it, the least recently used idle ones are dropped. */
const MAX_GATES = 10_000;

/** One gate per node for the whole process, by node id. */
export class NodeGates {
  private readonly gates = new Map<string, NodeGate>();
  readonly perNode: number;

  constructor(perNode = 4) {
    this.perNode = Math.max(1, Math.floor(perNode));
  }

  /**
   * The node's gate. Ask at each request rather than keep it: a gate is dropped only while idle,
   * so every request in flight to a node is counted by the gate asked for next.
   */
  of(nodeId: string): NodeGate {
    let g = this.gates.get(nodeId);
    if (g) {
      this.gates.delete(nodeId);
      this.gates.set(nodeId, g);
      return g;
    }
    g = new NodeGate(this.perNode);
    this.gates.set(nodeId, g);
    if (this.gates.size > MAX_GATES) {
      for (const [id, old] of this.gates) {
        if (this.gates.size <= MAX_GATES) break;
        if (old !== g && old.idle) this.gates.delete(id);
      }
    }
    return g;
  }

  get size(): number {
    return this.gates.size;
  }
}
