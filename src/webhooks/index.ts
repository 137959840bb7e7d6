export { parsePublicKey, parsePublicKeys, PublicKeyError } from './parse-public-key.js';
export { verifySignature, decodeSignature } from './verify-signature.js';
export { KeyCache, KeyUnavailableError, type KeyCacheOptions } from './key-cache.js';
export { createNodeDirectory, type NodeDirectory, type NodeDirectoryOptions } from './node-directory.js';
export { readEvent, dedupeKeyOf, type ServiceEvent, type ReadEventResult } from './read-event.js';
export { webhookRoutes, WEBHOOK_BODY_LIMIT, THUNDERSTACK_SIGNATURE_HEADER, type WebhookRouteDeps, type IngestResult } from './webhook-routes.js';
