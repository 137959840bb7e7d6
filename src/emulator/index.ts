export { startEmulator } from './start-emulator.js';
export { defaultFaults } from './default-faults.js';
export { EMULATOR_LEAKED_SECRETS } from './emulator-leaked-secrets.js';
export { runEmulatorCli } from './run-emulator-cli.js';
export { createSigningKey } from './create-signing-key.js';
export type { SigningKey } from './create-signing-key.js';
export type { Emulator, EmulatorOptions, Faults, Delivery, KeyType, FailableOperation, NodeWorldLike } from './types.js';
export { NodeWorld, DEFAULT_INDEXER, NODE_FAULTS, type NodeFault } from './node-api/index.js';
