/** The Slack room: Bolt adapter (Socket Mode or HTTP mode), Block Kit renderer, poster. */
export { createSlackAdapter, readViewValues, SLACK_RETRY_CONFIG } from './adapter.js';
export type { SlackAdapter, SlackAdapterOptions } from './adapter.js';
export { toBlockKit, allBlocks, TONE_COLORS, SlackRenderError } from './render.js';
export type { BlockKitMessage, SlackBlock } from './render.js';
export { dialogToModal, readModalOrigin, NODE_FIELD } from './dialog-to-modal.js';
export type { ModalOrigin } from './dialog-to-modal.js';
export { createSlackPoster } from './create-slack-poster.js';
export { toPostError, SLACK_CHANNEL_GONE_ERRORS } from './to-post-error.js';
export { FastifyReceiver, verifySlackSignature, SLACK_EVENTS_PATH } from './fastify-receiver.js';
export * from './limits.js';
