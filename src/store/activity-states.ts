/**
 * The activity room's table: the last state polled of each node (JSON: the snapshot and the
 * liquidity bands), so that a restart of the bot compares with what it saw before and never
 * announces history again.
 */
import type { Db } from './database.js';

export interface ActivityStateRepo {
  get(nodeId: string): Promise<unknown>;
  put(nodeId: string, state: unknown, polledAt: number): Promise<void>;
  /** Forgets nodes that no longer exist. */
  removeExcept(nodeIds: readonly string[]): Promise<number>;
}

export function createActivityStateRepo(db: Db): ActivityStateRepo {
  const getQ = db.prepare<[string], { state: string }>('SELECT state FROM activity_states WHERE node_id = ?');
  const putQ = db.prepare(
    `INSERT INTO activity_states (node_id, state, polled_at) VALUES (?, ?, ?)
     ON CONFLICT (node_id) DO UPDATE SET state = excluded.state, polled_at = excluded.polled_at`,
  );
  const allQ = db.prepare<[], { node_id: string }>('SELECT node_id FROM activity_states');
  const delQ = db.prepare('DELETE FROM activity_states WHERE node_id = ?');
  return {
    get: async (nodeId) => {
      const row = getQ.get(nodeId);
      return row ? (JSON.parse(row.state) as unknown) : undefined;
    },
    put: async (nodeId, state, polledAt) => {
      putQ.run(nodeId, JSON.stringify(state), polledAt);
    },
    removeExcept: async (nodeIds) => {
      const keep = new Set(nodeIds);
      let removed = 0;
      for (const { node_id } of allQ.all()) if (!keep.has(node_id)) removed += delQ.run(node_id).changes;
      return removed;
    },
  };
}
