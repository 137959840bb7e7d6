/**
 * SQL of the notify room's escalations (migration 201): which incidents were paged, to whom,
 * and the page outbox, the durable queue of calls to PagerDuty Events v2 or the escalation
 * webhook (trigger, acknowledge, resolve), retried with backoff until they are answered.
 */
import type { AnyDb } from './database.js';
import type { IncidentRow } from './notify-rows.js';

export interface EscalationRow {
  incident_id: number;
  escalated_at: number;
  escalated_to: string;
  ack_queued: number;
  resolve_queued: number;
}

export type PageAction = 'trigger' | 'acknowledge' | 'resolve';

export interface PageRow {
  id: number;
  incident_id: number;
  action: PageAction;
  /** `pagerduty` or `webhook`. */
  target: string;
  /** The JSON body sent as it is. */
  body: string;
  state: 'pending' | 'sent' | 'failed';
  attempts: number;
  next_attempt_at: number;
  created_at: number;
  sent_at: number | null;
  last_error: string | null;
}

export class NotifyPages {
  constructor(readonly db: AnyDb) {}

  /** One transaction (nested in a caller's: a savepoint). */
  tx<T>(fn: () => Promise<T>): Promise<T> {
    return this.db.tx(fn);
  }

  /** Open, unacknowledged incidents that were not paged yet. */
  async unpagedOpenIncidents(): Promise<IncidentRow[]> {
    return this.db.all<IncidentRow>(
      `SELECT * FROM notify_incidents WHERE state = 'open' AND acked_by IS NULL AND message_id IS NOT NULL
       AND id NOT IN (SELECT incident_id FROM notify_escalations) ORDER BY id`,
    );
  }

  /** Paged incidents acknowledged (`ack`) or resolved (`resolve`) since, whose page was not queued yet. */
  async pagedToFollowUp(which: 'ack' | 'resolve'): Promise<Array<IncidentRow & EscalationRow>> {
    const where =
      which === 'ack'
        ? `e.ack_queued = 0 AND e.resolve_queued = 0 AND i.acked_by IS NOT NULL AND i.state = 'open'`
        : `e.resolve_queued = 0 AND i.state = 'resolved'`;
    return this.db.all<IncidentRow & EscalationRow>(
      `SELECT i.*, e.* FROM notify_escalations e JOIN notify_incidents i ON i.id = e.incident_id WHERE ${where} ORDER BY i.id`,
    );
  }

  /** False when the incident was already escalated (by another replica, in a race): then nothing more is to be queued. */
  async insertEscalation(e: Pick<EscalationRow, 'incident_id' | 'escalated_at' | 'escalated_to'>): Promise<boolean> {
    const r = await this.db.run(
      'INSERT INTO notify_escalations (incident_id, escalated_at, escalated_to) VALUES (@incident_id, @escalated_at, @escalated_to) ON CONFLICT DO NOTHING',
      { incident_id: e.incident_id, escalated_at: e.escalated_at, escalated_to: e.escalated_to },
    );
    return r.changes === 1;
  }

  async markQueued(incidentId: number, which: 'ack' | 'resolve'): Promise<void> {
    await this.db.run(`UPDATE notify_escalations SET ${which === 'ack' ? 'ack_queued' : 'resolve_queued'} = 1 WHERE incident_id = ?`, [
      incidentId,
    ]);
  }

  async escalation(incidentId: number): Promise<EscalationRow | undefined> {
    return this.db.get<EscalationRow>('SELECT * FROM notify_escalations WHERE incident_id = ?', [incidentId]);
  }

  async insertPage(p: Pick<PageRow, 'incident_id' | 'action' | 'target' | 'body' | 'next_attempt_at' | 'created_at'>): Promise<void> {
    await this.db.run(
      `INSERT INTO notify_page_outbox (incident_id, action, target, body, next_attempt_at, created_at)
       VALUES (@incident_id, @action, @target, @body, @next_attempt_at, @created_at)`,
      {
        incident_id: p.incident_id,
        action: p.action,
        target: p.target,
        body: p.body,
        next_attempt_at: p.next_attempt_at,
        created_at: p.created_at,
      },
    );
  }

  /** Pending pages that are due, oldest first (an incident's trigger goes before its resolve). */
  async duePages(now: number, limit = 50): Promise<PageRow[]> {
    return this.db.all<PageRow>(`SELECT * FROM notify_page_outbox WHERE state = 'pending' AND next_attempt_at <= ? ORDER BY id LIMIT ?`, [
      now,
      limit,
    ]);
  }

  /** Whether an earlier page of the same incident and target still waits (pages of one incident go in order). */
  async earlierPending(p: PageRow): Promise<boolean> {
    return (
      (await this.db.get(
        `SELECT 1 AS one FROM notify_page_outbox WHERE state = 'pending' AND incident_id = ? AND target = ? AND id < ? LIMIT 1`,
        [p.incident_id, p.target, p.id],
      )) !== undefined
    );
  }

  /**
   * Takes a due page for sending until `until` (its next attempt moves there): true for the one
   * replica whose UPDATE changed the row, so a page is sent once even when passes overlap.
   */
  async claimPage(id: number, until: number, now: number): Promise<boolean> {
    const r = await this.db.run(
      `UPDATE notify_page_outbox SET next_attempt_at = ? WHERE id = ? AND state = 'pending' AND next_attempt_at <= ?`,
      [until, id, now],
    );
    return r.changes === 1;
  }

  async markPageSent(id: number, now: number): Promise<void> {
    await this.db.run(
      `UPDATE notify_page_outbox SET state = 'sent', sent_at = ?, attempts = attempts + 1, last_error = NULL WHERE id = ?`,
      [now, id],
    );
  }

  async markPageFailed(id: number, error: string): Promise<void> {
    await this.db.run(`UPDATE notify_page_outbox SET state = 'failed', attempts = attempts + 1, last_error = ? WHERE id = ?`, [error, id]);
  }

  async postponePage(id: number, until: number, error: string): Promise<void> {
    await this.db.run(`UPDATE notify_page_outbox SET next_attempt_at = ?, attempts = attempts + 1, last_error = ? WHERE id = ?`, [
      until,
      error,
      id,
    ]);
  }

  /** The trigger pages of an incident (one per target): acknowledge and resolve go where they went. */
  async triggersOf(incidentId: number): Promise<PageRow[]> {
    return this.db.all<PageRow>(`SELECT * FROM notify_page_outbox WHERE incident_id = ? AND action = 'trigger' ORDER BY id`, [incidentId]);
  }

  async pages(): Promise<PageRow[]> {
    return this.db.all<PageRow>('SELECT * FROM notify_page_outbox ORDER BY id');
  }
}
