/**
 * The activity room's table: the last state polled of each node (JSON: the snapshot and the
 * liquidity bands), so that a restart of the bot compares with what it saw before and never
 * announces history again.
 */
import type { AnyDb } from './database.js';

export interface ActivityStateRepo {
  get(nodeId: string): Promise<unknown>;
  put(nodeId: string, state: unknown, polledAt: number): Promise<void>;
  /** Forgets nodes that no longer exist. */
  removeExcept(nodeIds: readonly string[]): Promise<number>;
}

export function createActivityStateRepo(db: AnyDb): ActivityStateRepo {
  return {
    get: async (nodeId) => {
      const state = await db.value<string>('SELECT state FROM activity_states WHERE node_id = ?', [nodeId]);
      return state === undefined ? undefined : (JSON.parse(state) as unknown);
    },
    put: async (nodeId, state, polledAt) => {
      await db.run(
        `INSERT INTO activity_states (node_id, state, polled_at) VALUES (?, ?, ?)
         ON CONFLICT (node_id) DO UPDATE SET state = excluded.state, polled_at = excluded.polled_at`,
        [nodeId, JSON.stringify(state), polledAt],
      );
    },
    removeExcept: async (nodeIds) => {
      const keep = new Set(nodeIds);
      let removed = 0;
      for (const nodeId of await db.column<string>('SELECT node_id FROM activity_states')) {
        if (!keep.has(nodeId)) removed += (await db.run('DELETE FROM activity_states WHERE node_id = ?', [nodeId])).changes;
      }
      return removed;
    },
  };
}
