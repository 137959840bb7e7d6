/**
 * The nodes' status history as routing keeps it (the store's per-node rows, notify_nodes):
 * for each event routed, in id order, the status its node had before it (stored on its outbox
 * rows as prev_status, for the round that posts them: how many times the node changed), and
 * the node's row brought up to date: its last status, and its newest status event by the
 * event's own time (a late delivery is superseded by it). The rows are read once per chunk (on
 * SQLite only those not kept from an earlier chunk: store/notify-nodes-cache.ts) and written
 * once per chunk, by the router after the 2xx (or by ingestEvent, in its transaction), never by
 * the webhook's commit.
 *
 * The previous status is the node's last status event with a lower id, as the index over every
 * event answered it: from the row when the row is behind the event (routed in id order: the
 * usual case), else (a later event of the node was routed first: the direct API, a PostgreSQL
 * commit that came late, a row seeded from pending events by the migration) from the events
 * table.
 */
import type { NodeStatusState, NotifyStore } from '../store/index.js';

export interface NodeStatusTracker {
  /**
   * The status of the event's node before it ('' when none), and the node's row updated with the
   * event. Call in id order for the events of one node. A string at once when the node's row
   * answers (the usual case: no await); a promise when the events table must (a later event of
   * the node was routed first): await it before the next event.
   */
  observe(e: { id: number; node_id: string; status: string | null; event_ts: string | null }): string | Promise<string>;
  /** Writes the rows that changed (in the caller's transaction). */
  save(): Promise<void>;
}

/** The time of the row's newest status event (ms), NaN when it has none that parses. */
function newestMs(s: NodeStatusState): number {
  if (s.newest_ms !== null) return s.newest_ms;
  return s.newest_event_ts ? Date.parse(s.newest_event_ts) : NaN;
}

type Observed = { id: number; node_id: string; status: string | null; event_ts: string | null };

/** The node's row updated with the event (in place, or made), added to `changed`. */
function apply(states: Map<string, NodeStatusState>, changed: Set<NodeStatusState>, e: Observed): void {
  if (e.status === null) return;
  let s = states.get(e.node_id);
  if (!s) {
    s = {
      node_id: e.node_id,
      last_id: 0,
      last_status: null,
      newest_id: null,
      newest_status: null,
      newest_event_ts: null,
      newest_ms: null,
    };
    states.set(e.node_id, s);
  }
  if (e.id > s.last_id) {
    s.last_id = e.id;
    s.last_status = e.status;
  }
  const t = e.event_ts ? Date.parse(e.event_ts) : NaN;
  if (Number.isFinite(t)) {
    const known = newestMs(s);
    if (!Number.isFinite(known) || t > known || (t === known && e.id > (s.newest_id ?? 0))) {
      s.newest_id = e.id;
      s.newest_status = e.status;
      s.newest_event_ts = e.event_ts;
      s.newest_ms = t;
    } else s.newest_ms = known;
  }
  changed.add(s);
}

/** A tracker over the rows of these nodes (read now, in one statement for a router's chunk, or none: see NotifyStore.nodeStates). */
export async function trackNodeStatus(store: NotifyStore, nodeIds: readonly string[]): Promise<NodeStatusTracker> {
  const states = await store.nodeStates([...new Set(nodeIds)]);
  const changed = new Set<NodeStatusState>();
  return {
    observe(e) {
      const s = states.get(e.node_id);
      if (!s || s.last_id < e.id) {
        const prev = s ? (s.last_status ?? '') : '';
        apply(states, changed, e);
        return prev;
      }
      return store.previousStatus(e.node_id, e.id).then((found) => {
        apply(states, changed, e);
        return found ?? '';
      });
    },
    async save() {
      if (changed.size) await store.saveNodeStates([...changed]);
      changed.clear();
    },
  };
}
