export { createNodeApiClient, type GenerationCheck, type NodeApiClient, type NodeApiClientOptions } from './create-node-api-client.js';
export { buildTransportOptions } from './transport.js';
export { endpoints, endpointNames, type EndpointDef, type EndpointName, type RequestOf, type ResponseOf } from './endpoints.js';
export { NodeApiError, isNodeApiError, walletStateOf, type NodeApiErrorKind } from './node-api-error.js';
export { loadNodeCredentials, NodeCredentialsError, type NodeCredentials, type NodeCredentialsLookup } from './load-node-credentials.js';
export { createServiceCerts, sealSecret, openSecret, type ServiceCerts, type CertFacts } from './service-certs.js';
export { Amount } from './schemas/common.js';
export { parseLosslessJson, stringifyJson } from './json.js';
export { checkNodeApiUrl } from './check-node-api-url.js';
export { NodeGates, NodeGate, GateWaitTimeout } from './node-gates.js';
export { NODE_API_MAX_BYTES } from './bounded-read.js';
export {
  ApiShapes,
  NodeShapes,
  API_SHAPES,
  CAPABILITIES,
  ADDED,
  isAdded,
  imageOfNode,
  shapeOfCommit,
  otherShape,
  type ApiShape,
  type Capability,
  type AddedCapability,
} from './generations.js';
export { SHAPED, isShaped, type ShapedName } from './endpoints.js';
export { ChainSyncMode, SyncStrategy } from './schemas/lifecycle.js';
export { transferStatusText, transferKindText, transactionTypeText, assetSchemaText } from './words.js';
export { AdaptiveLimit, type AdaptiveLimitOptions, type CallOutcome, type CallSample } from './adaptive-limit.js';
export {
  createCallScheduler,
  classifyNodeError,
  NodeDeadlineError,
  type CallScheduler,
  type CallSchedulerOptions,
  type CallSchedulerStats,
  type MapOptions,
  type RunOptions,
} from './call-scheduler.js';
