export {
  createNodeApiClient,
  buildTransportOptions,
  type GenerationCheck,
  type NodeApiClient,
  type NodeApiClientOptions,
} from './create-node-api-client.js';
export { endpoints, endpointNames, type EndpointDef, type EndpointName, type RequestOf, type ResponseOf } from './endpoints.js';
export { NodeApiError, isNodeApiError, walletStateOf, type NodeApiErrorKind } from './node-api-error.js';
export { loadNodeCredentials, NodeCredentialsError, type NodeCredentials } from './load-node-credentials.js';
export { Amount } from './schemas/common.js';
export { parseLosslessJson, stringifyJson } from './json.js';
export { checkNodeApiUrl } from './check-node-api-url.js';
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
