import type { AnyDb } from './database.js';
import type { IncidentRow } from './notify-rows.js';
import { whereEquals } from './where-equals.js';

/** The columns updateIncident may set (named in its SQL; never taken from the caller's keys unchecked). */
const PATCHABLE = ['state', 'last_status', 'resolved_at', 'acked_by', 'acked_at', 'changes'] as const;
type Patch = Partial<Pick<IncidentRow, (typeof PATCHABLE)[number]>>;

/** Incidents of the notify room: one open incident per channel and node, its message and its state. */
export class NotifyIncidents {
  constructor(private readonly db: AnyDb) {}

  // ---- incidents ----
  async openIncident(platform: string, channelId: string, nodeId: string): Promise<IncidentRow | undefined> {
    return this.db.get<IncidentRow>(
      `SELECT * FROM notify_incidents WHERE platform = ? AND channel_id = ? AND node_id = ? AND state = 'open'`,
      [platform, channelId, nodeId],
    );
  }

  /** Every open incident of a channel (one per node at most): what a round of the channel may update. */
  async openIncidentsOf(platform: string, channelId: string): Promise<IncidentRow[]> {
    return this.db.all<IncidentRow>(`SELECT * FROM notify_incidents WHERE platform = ? AND channel_id = ? AND state = 'open' ORDER BY id`, [
      platform,
      channelId,
    ]);
  }

  async incident(id: number): Promise<IncidentRow | undefined> {
    return this.db.get<IncidentRow>(
      'SELECT i.*, e.escalated_at, e.escalated_to FROM notify_incidents i LEFT JOIN notify_escalations e ON e.incident_id = i.id WHERE i.id = ?',
      [id],
    );
  }

  async incidents(filter: { platform?: string; channelId?: string; state?: 'open' | 'resolved' } = {}): Promise<IncidentRow[]> {
    const where = whereEquals([
      ['platform', filter.platform],
      ['channel_id', filter.channelId],
      ['state', filter.state],
    ]);
    return this.db.all<IncidentRow>(`SELECT * FROM notify_incidents ${where.sql} ORDER BY id`, where.params);
  }

  /** A new open incident's id (a second open one of the same channel and node is refused by the partial unique index). */
  async insertIncident(i: Omit<IncidentRow, 'id' | 'state' | 'resolved_at' | 'acked_by' | 'acked_at'>): Promise<number> {
    const r = await this.db.run(
      `INSERT INTO notify_incidents (platform, channel_id, node_id, node_name, last_status, opened_at, message_id, thread_id, changes)
       VALUES (@platform, @channel_id, @node_id, @node_name, @last_status, @opened_at, @message_id, @thread_id, @changes)
       RETURNING id`,
      {
        platform: i.platform,
        channel_id: i.channel_id,
        node_id: i.node_id,
        node_name: i.node_name,
        last_status: i.last_status,
        opened_at: i.opened_at,
        message_id: i.message_id,
        thread_id: i.thread_id,
        changes: i.changes,
      },
    );
    return Number(r.rows[0].id);
  }

  async deleteIncident(id: number): Promise<void> {
    await this.db.run('DELETE FROM notify_incidents WHERE id = ?', [id]);
  }

  /** The incident's message is lost (deleted by someone): the next round posts a fresh one. */
  async clearIncidentMessage(id: number): Promise<void> {
    await this.db.run('UPDATE notify_incidents SET message_id = NULL, thread_id = NULL WHERE id = ?', [id]);
  }

  async setIncidentMessage(id: number, messageId: string, threadId: string | null): Promise<void> {
    await this.db.run('UPDATE notify_incidents SET message_id = ?, thread_id = ? WHERE id = ?', [messageId, threadId, id]);
  }

  /**
   * Records who acknowledged an open incident, only if nobody did yet (one guarded UPDATE: of
   * concurrent acknowledgements, on any replica, exactly one changes the row). True when this one did.
   */
  async acknowledgeIncident(id: number, by: string, at: number): Promise<boolean> {
    const r = await this.db.run(
      `UPDATE notify_incidents SET acked_by = ?, acked_at = ? WHERE id = ? AND state = 'open' AND acked_by IS NULL`,
      [by, at, id],
    );
    return r.changes === 1;
  }

  async updateIncident(id: number, patch: Patch): Promise<void> {
    const keys = PATCHABLE.filter((k) => k in patch);
    if (!keys.length) return;
    const params: Record<string, unknown> = { id };
    for (const k of keys) params[k] = patch[k];
    await this.db.run(`UPDATE notify_incidents SET ${keys.map((k) => `${k} = @${k}`).join(', ')} WHERE id = @id`, params);
  }
}
