/**
 * SQL of the notify room's escalations (migration 201): which incidents were paged, to whom,
 * and the page outbox, the durable queue of calls to PagerDuty Events v2 or the escalation
 * webhook (trigger, acknowledge, resolve), retried with backoff until they are answered.
 */
import type { Db } from './database.js';
import type { IncidentRow } from './notify-rows.js';
import { statementCache, type Statement } from './statement-cache.js';

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
  private readonly q: (sql: string) => Statement;

  constructor(readonly db: Db) {
    this.q = statementCache(db);
  }

  tx<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  /** Open, unacknowledged incidents that were not paged yet. */
  unpagedOpenIncidents(): IncidentRow[] {
    return this.q(
      `SELECT * FROM notify_incidents WHERE state = 'open' AND acked_by IS NULL AND message_id IS NOT NULL
       AND id NOT IN (SELECT incident_id FROM notify_escalations) ORDER BY id`,
    ).all() as IncidentRow[];
  }

  /** Paged incidents acknowledged (`ack`) or resolved (`resolve`) since, whose page was not queued yet. */
  pagedToFollowUp(which: 'ack' | 'resolve'): Array<IncidentRow & EscalationRow> {
    const where = which === 'ack' ? `e.ack_queued = 0 AND e.resolve_queued = 0 AND i.acked_by IS NOT NULL AND i.state = 'open'` : `e.resolve_queued = 0 AND i.state = 'resolved'`;
    return this.q(`SELECT i.*, e.* FROM notify_escalations e JOIN notify_incidents i ON i.id = e.incident_id WHERE ${where} ORDER BY i.id`).all() as Array<
      IncidentRow & EscalationRow
    >;
  }

  insertEscalation(e: Pick<EscalationRow, 'incident_id' | 'escalated_at' | 'escalated_to'>): void {
    this.q('INSERT INTO notify_escalations (incident_id, escalated_at, escalated_to) VALUES (@incident_id, @escalated_at, @escalated_to) ON CONFLICT DO NOTHING').run(e);
  }

  markQueued(incidentId: number, which: 'ack' | 'resolve'): void {
    this.q(`UPDATE notify_escalations SET ${which === 'ack' ? 'ack_queued' : 'resolve_queued'} = 1 WHERE incident_id = ?`).run(incidentId);
  }

  escalation(incidentId: number): EscalationRow | undefined {
    return this.q('SELECT * FROM notify_escalations WHERE incident_id = ?').get(incidentId) as EscalationRow | undefined;
  }

  insertPage(p: Pick<PageRow, 'incident_id' | 'action' | 'target' | 'body' | 'next_attempt_at' | 'created_at'>): void {
    this.q(
      `INSERT INTO notify_page_outbox (incident_id, action, target, body, next_attempt_at, created_at)
       VALUES (@incident_id, @action, @target, @body, @next_attempt_at, @created_at)`,
    ).run(p);
  }

  /** Pending pages that are due, oldest first (an incident's trigger goes before its resolve). */
  duePages(now: number, limit = 50): PageRow[] {
    return this.q(`SELECT * FROM notify_page_outbox WHERE state = 'pending' AND next_attempt_at <= ? ORDER BY id LIMIT ?`).all(now, limit) as PageRow[];
  }

  /** Whether an earlier page of the same incident and target still waits (pages of one incident go in order). */
  earlierPending(p: PageRow): boolean {
    return !!this.q(`SELECT 1 FROM notify_page_outbox WHERE state = 'pending' AND incident_id = ? AND target = ? AND id < ? LIMIT 1`).get(p.incident_id, p.target, p.id);
  }

  markPageSent(id: number, now: number): void {
    this.q(`UPDATE notify_page_outbox SET state = 'sent', sent_at = ?, attempts = attempts + 1, last_error = NULL WHERE id = ?`).run(now, id);
  }

  markPageFailed(id: number, error: string): void {
    this.q(`UPDATE notify_page_outbox SET state = 'failed', attempts = attempts + 1, last_error = ? WHERE id = ?`).run(error, id);
  }

  postponePage(id: number, until: number, error: string): void {
    this.q(`UPDATE notify_page_outbox SET next_attempt_at = ?, attempts = attempts + 1, last_error = ? WHERE id = ?`).run(until, error, id);
  }

  /** The trigger pages of an incident (one per target): acknowledge and resolve go where they went. */
  triggersOf(incidentId: number): PageRow[] {
    return this.q(`SELECT * FROM notify_page_outbox WHERE incident_id = ? AND action = 'trigger' ORDER BY id`).all(incidentId) as PageRow[];
  }

  pages(): PageRow[] {
    return this.q('SELECT * FROM notify_page_outbox ORDER BY id').all() as PageRow[];
  }
}
