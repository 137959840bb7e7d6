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
  escalations: Counter<'target' | 'action' | 'outcome'>;
}

export function createMetrics(opts: { defaults?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (opts.defaults !== false) collectDefaultMetrics({ register: registry });
  return {
    registry,
    commands: new Counter({
      name: 'rln_chatops_commands_total',
      help: 'Commands run, by command path and outcome (ok, refused, failed, confirm, dialog)',
      labelNames: ['command', 'outcome'],
      registers: [registry],
    }),
    webhooks: new Counter({
      name: 'rln_chatops_webhooks_total',
      help: 'Webhook requests, by outcome (accepted, duplicate, refused) and reason',
      labelNames: ['outcome', 'reason'],
      registers: [registry],
    }),
    outboxDepth: new Gauge({
      name: 'rln_chatops_outbox_depth',
      help: 'Messages waiting in the outbox, and events stored but not yet routed to it',
      registers: [registry],
    }),
    deliveryLatency: new Histogram({
      name: 'rln_chatops_delivery_latency_seconds',
      help: 'Time from an event accepted to its message posted',
      labelNames: ['platform'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300],
      registers: [registry],
    }),
    deliveries: new Counter({
      name: 'rln_chatops_deliveries_total',
      help: 'Chat posts from the outbox, by platform and outcome (ok, retry, rate_limited, gone, failed)',
      labelNames: ['platform', 'outcome'],
      registers: [registry],
    }),
    reportRuns: new Counter({
      name: 'rln_chatops_report_runs_total',
      help: 'Report runs, by kind (balance, channels) and outcome',
      labelNames: ['kind', 'outcome'],
      registers: [registry],
    }),
    serviceCalls: new Counter({
      name: 'rln_chatops_service_calls_total',
      help: 'Calls to the hosting service, by endpoint and outcome',
      labelNames: ['endpoint', 'outcome'],
      registers: [registry],
    }),
    activityPolls: new Counter({
      name: 'rln_chatops_activity_polls_total',
      help: 'Node activity polls, by outcome (unlocked, locked, uninitialised, unreachable, failed)',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    activityPollSeconds: new Histogram({
      name: 'rln_chatops_activity_poll_seconds',
      help: 'Time to poll one node (all its API calls)',
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10],
      registers: [registry],
    }),
    activityEvents: new Counter({
      name: 'rln_chatops_activity_events_total',
      help: 'What the activity poller saw change, by kind (payments, channels, transfers, deposits, liquidity, lock)',
      labelNames: ['kind'],
      registers: [registry],
    }),
    escalations: new Counter({
      name: 'rln_chatops_escalations_total',
      help: 'Calls to PagerDuty or the escalation webhook, by target, action (trigger, acknowledge, resolve) and outcome (sent, retry, failed)',
      labelNames: ['target', 'action', 'outcome'],
      registers: [registry],
    }),
  };
}
