export { NodeWorld, ROUTES, stringifyExact, DEFAULT_INDEXER, type NodeApiReply } from './world.js';
export { LARGE_AMOUNT_OFFSET } from './wallet.js';
export { U64_MAX } from './peers.js';
export { parseMultipartFile } from './multipart.js';
export { NODE_FAULTS, type NodeFault } from './faults.js';
