export { startFakeDiscord, snowflake, fakeUser } from './start-fake-discord.js';
export type { FakeDiscord, GatewayOp, RecordedCall, ScriptedFailure } from './start-fake-discord.js';
export {
  commandInteraction,
  autocompleteInteraction,
  buttonInteraction,
  modalSubmitInteraction,
  pingInteraction,
  createInteractionSigner,
  signHeaders,
} from './interactions.js';
export type { Who, InteractionSigner } from './interactions.js';
