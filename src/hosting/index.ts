export { createHostingClient } from './create-hosting-client.js';
export type { HostingClient, HostingClientOptions, RetryInfo } from './create-hosting-client.js';
export { ServiceError, defaultHint, kindForStatus } from './service-error.js';
export type { ServiceErrorKind, ServiceErrorInit } from './service-error.js';
export { checkWebhookUrl } from './check-webhook-url.js';
export { NODE_STATUSES, hostedNodeSchema, buildSchema, findNode } from './schemas.js';
export type { HostedNode, NodeStatus, Build } from './schemas.js';
export { downloadLogFile, LOG_DOWNLOAD_MAX_BYTES, LOG_KEEP_BYTES, type LogFile } from './download-log-file.js';
