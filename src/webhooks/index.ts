/**
 * The webhooks room: the service's signed events. Pure key parsing and signature
 * verification (node:crypto, and libsodium for Ed25519 when its addon loads), a key cache that
 * refetches on rotation, a cached directory of the account's nodes, and the plugin for
 * POST /webhooks/service[/:nodeId] (a raw node:http route).
 */
export { parsePublicKey, parsePublicKeys, PublicKeyError } from './parse-public-key.js';
export { verifySignature, decodeSignature } from './verify-signature.js';
export { ed25519, type Ed25519Backend } from './ed25519.js';
export { KeyCache, KeyUnavailableError, type KeyCacheOptions } from './key-cache.js';
export { createNodeDirectory, type NodeDirectory, type NodeDirectoryOptions } from './node-directory.js';
export { readEvent, dedupeKeyOf, type ServiceEvent, type ReadEventResult } from './read-event.js';
export { effectiveEventTime, jsonDeeperThan, type EffectiveTime } from './event-time.js';
export {
  webhookRoutes,
  WEBHOOK_BODY_LIMIT,
  WEBHOOK_MAX_JSON_DEPTH,
  WEBHOOK_MAX_EVENT_AGE_MS,
  THUNDERSTACK_SIGNATURE_HEADER,
  type WebhookRouteDeps,
  type IngestResult,
  type IngestWith,
} from './webhook-routes.js';
