/**
 * The notify room: from a verified service event to the channels that watch its node.
 * Tables (migrations 200–299, src/store/migrations/notify.ts): notify_events, notify_watches,
 * notify_mutes, notify_outbox, notify_incidents, notify_notices. SQL in src/store/notify-store.ts.
 *
 * Wiring (src/app/create-app.ts): createNotifier({ buttons, ... }) takes the engine's ButtonIds; services.watches
 * is notifier.watches in the one services object;
 * routes.push(notifier.webhookRoutes({ signatureHeader })); reports use notifier.outbox;
 * notifier.start() once the HTTP server listens; on shutdown drain(ms) then stop().
 *
 * Inside (README.md): webhook events are stored marked "not yet routed" and routed after the
 * 2xx by the outbox worker (route-pending.ts); the worker runs rounds, each planned without I/O (plan-round.ts)
 * and carried out by an executor (execute-round.ts) through a per-channel pacer (pacer.ts);
 * incidents.ts and escalation.ts hold the incidents and the notices to admins.
 */
export { createNotifier, type Notifier, type NotifierOptions, type IncomingEvent, type WebhookRoutesOptions } from './create-notifier.js';
export { createWatchService, ALL_NODES, type WatchService, type Watch, type Incident, type WatchTarget } from './watch-service.js';
export { OutboxWorker, type OutboxWorkerOptions } from './outbox-worker.js';
export { planRound, type RoundAction, type RoundState } from './plan-round.js';
export { createPaging, dedupKeyOf, PAGERDUTY_EVENTS_URL, ESCALATION_SIGNATURE_HEADER, type Paging, type PagingOptions } from './paging.js';
export { ACTIVITY_EVENT_PREFIX, type ActivityItem } from './render-notifications.js';
export {
  eventMessage,
  digestMessage,
  incidentMessage,
  threadLine,
  noticeMessage,
  type DigestEntry,
  type EventView,
} from './render-notifications.js';
