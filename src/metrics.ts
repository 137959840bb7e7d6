/**
 * Prometheus metrics (prom-client). One registry per process, created with the app so
 * tests can run several apps side by side. Rooms receive `Metrics` and increment.
 *
 * Node's default process and runtime metrics keep their standard names
 * (`process_resident_memory_bytes`, `nodejs_eventloop_lag_seconds`, …), so the usual
 * Node.js dashboards work unchanged; the bot's own metrics carry the `rln_chatops_` prefix.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface Metrics {
  registry: Registry;
  commands: Counter<'command' | 'outcome'>;
  webhooks: Counter<'outcome' | 'reason'>;
  outboxDepth: Gauge;
  deliveryLatency: Histogram<'platform'>;
  deliveries: Counter<'platform' | 'outcome'>;
  reportRuns: Counter<'kind' | 'outcome'>;
  serviceCalls: Counter<'endpoint' | 'outcome'>;
  activityPolls: Counter<'outcome'>;
  activityPollSeconds: Histogram;
  activityEvents: Counter<'kind'>;
  activityOverdue: Gauge;
  activityLag: Gauge;
  activityMissed: Counter;
  activityConcurrency: Gauge;
  escalations: Counter<'target' | 'action' | 'outcome'>;
}

export function createMetrics(opts: { defaults?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (opts.defaults !== false) collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[]) =>
    new Counter<L>({ name, help, labelNames, registers });
  const gauge = (name: string, help: string) => new Gauge({ name, help, registers });
  const histogram = <L extends string>(name: string, help: string, buckets: number[], labelNames: readonly L[] = []) =>
    new Histogram<L>({ name, help, buckets, labelNames, registers });
  return {
    registry,
    commands: counter('rln_chatops_commands_total', 'Commands run, by command path and outcome (ok, refused, failed, confirm, dialog)', [
      'command',
      'outcome',
    ]),
    webhooks: counter('rln_chatops_webhooks_total', 'Webhook requests, by outcome (accepted, duplicate, refused) and reason', [
      'outcome',
      'reason',
    ]),
    outboxDepth: gauge('rln_chatops_outbox_depth', 'Messages waiting in the outbox, and events stored but not yet routed to it'),
    deliveryLatency: histogram(
      'rln_chatops_delivery_latency_seconds',
      'Time from an event accepted to its message posted',
      [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300],
      ['platform'],
    ),
    deliveries: counter(
      'rln_chatops_deliveries_total',
      'Chat posts from the outbox, by platform and outcome (ok, retry, rate_limited, gone, failed)',
      ['platform', 'outcome'],
    ),
    reportRuns: counter('rln_chatops_report_runs_total', 'Report runs, by kind (balance, channels) and outcome', ['kind', 'outcome']),
    serviceCalls: counter('rln_chatops_service_calls_total', 'Calls to the hosting service, by endpoint and outcome', [
      'endpoint',
      'outcome',
    ]),
    activityPolls: counter(
      'rln_chatops_activity_polls_total',
      'Node activity polls, by outcome (unlocked, locked, uninitialised, unreachable, failed)',
      ['outcome'],
    ),
    activityPollSeconds: histogram(
      'rln_chatops_activity_poll_seconds',
      'Time to poll one node (all its API calls)',
      [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10],
      [],
    ),
    activityEvents: counter(
      'rln_chatops_activity_events_total',
      'What the activity poller saw change, by kind (payments, channels, transfers, deposits, liquidity, lock)',
      ['kind'],
    ),
    activityOverdue: gauge(
      'rln_chatops_activity_overdue_nodes',
      'Watched nodes waiting for their poll well past their time (above 0: polling does not keep up with POLL_INTERVAL_S)',
    ),
    activityLag: gauge('rln_chatops_activity_poll_lag_seconds', 'How long the latest node waiting for its poll has waited past its time'),
    activityMissed: counter(
      'rln_chatops_activity_missed_intervals_total',
      'Whole intervals a watched node went without its poll (the poller did not keep up, or the bot was busy)',
      [],
    ),
    activityConcurrency: gauge(
      'rln_chatops_activity_poll_concurrency',
      'Nodes the poller reads at once at most, sized from the poll rate and the measured poll time',
    ),
    escalations: counter(
      'rln_chatops_escalations_total',
      'Calls to PagerDuty or the escalation webhook, by target, action (trigger, acknowledge, resolve) and outcome (sent, retry, failed)',
      ['target', 'action', 'outcome'],
    ),
  };
}
