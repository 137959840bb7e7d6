/** The HTTP room: the one fastify server, and what signed endpoints share (body admission, replay guard). */
export { createHttpServer, rawRoutingOf, type HttpServerOptions, type RawRoute, type RawRouting } from './server.js';
export { admitBodies, createBodyAdmission, type AdmitBodiesOptions, type BodyRefusal } from './admit-bodies.js';
export { lazyRequestLogger } from './lazy-request-logger.js';
export { createReplayGuard, type ReplayGuard, type ReplayGuardStore } from './create-replay-guard.js';
export { cachedCheck } from './cached-check.js';
