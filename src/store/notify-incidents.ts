import type { Statement } from './statement-cache.js';
import type { IncidentRow } from './notify-rows.js';
import { whereEquals } from './where-equals.js';

/** Incidents of the notify room: one open incident per channel and node, its message and its state. */
export class NotifyIncidents {
  constructor(private readonly q: (sql: string) => Statement) {}

  // ---- incidents ----
  openIncident(platform: string, channelId: string, nodeId: string): IncidentRow | undefined {
    return this.q(`SELECT * FROM notify_incidents WHERE platform = ? AND channel_id = ? AND node_id = ? AND state = 'open'`)
      .get(platform, channelId, nodeId) as IncidentRow | undefined;
  }

  incident(id: number): IncidentRow | undefined {
    return this.q('SELECT i.*, e.escalated_at, e.escalated_to FROM notify_incidents i LEFT JOIN notify_escalations e ON e.incident_id = i.id WHERE i.id = ?').get(id) as IncidentRow | undefined;
  }

  incidents(filter: { platform?: string; channelId?: string; state?: 'open' | 'resolved' } = {}): IncidentRow[] {
    const where = whereEquals([['platform', filter.platform], ['channel_id', filter.channelId], ['state', filter.state]]);
    return this.q(`SELECT * FROM notify_incidents ${where.sql} ORDER BY id`).all(...where.params) as IncidentRow[];
  }

  insertIncident(i: Omit<IncidentRow, 'id' | 'state' | 'resolved_at' | 'acked_by' | 'acked_at'>): number {
    return Number(
      this.q(
          `INSERT INTO notify_incidents (platform, channel_id, node_id, node_name, last_status, opened_at, message_id, thread_id, changes)
           VALUES (@platform, @channel_id, @node_id, @node_name, @last_status, @opened_at, @message_id, @thread_id, @changes)`,
        )
        .run(i).lastInsertRowid,
    );
  }

  deleteIncident(id: number): void {
    this.q('DELETE FROM notify_incidents WHERE id = ?').run(id);
  }

  /** The incident's message is lost (deleted by someone): the next round posts a fresh one. */
  clearIncidentMessage(id: number): void {
    this.q('UPDATE notify_incidents SET message_id = NULL, thread_id = NULL WHERE id = ?').run(id);
  }

  setIncidentMessage(id: number, messageId: string, threadId: string | null): void {
    this.q('UPDATE notify_incidents SET message_id = ?, thread_id = ? WHERE id = ?').run(messageId, threadId, id);
  }

  updateIncident(id: number, patch: Partial<Pick<IncidentRow, 'state' | 'last_status' | 'resolved_at' | 'acked_by' | 'acked_at' | 'changes'>>): void {
    const keys = Object.keys(patch);
    if (!keys.length) return;
    this.q(`UPDATE notify_incidents SET ${keys.map((k) => `${k} = @${k}`).join(', ')} WHERE id = @id`).run({ ...patch, id });
  }
}
