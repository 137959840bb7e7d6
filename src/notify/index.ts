export { createNotifier, type Notifier, type NotifierOptions, type IncomingEvent, type WebhookRoutesOptions } from './create-notifier.js';
export { createWatchService, actorLabel, ALL_NODES, type WatchService, type Watch, type Incident, type WatchTarget } from './watch-service.js';
export { OutboxWorker, type OutboxWorkerOptions } from './outbox-worker.js';
export { eventMessage, digestMessage, incidentMessage, threadLine, noticeMessage, type DigestEntry, type EventView } from './render-notifications.js';
