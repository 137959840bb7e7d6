/**
 * The vocabulary every layer speaks: the Message model and its formatting, user errors, amounts,
 * who acts where (Platform, Actor, Place, Role), the chat-poster interface, and small timing and
 * text helpers. A leaf: it imports nothing else in the project (docs/ARCHITECTURE.md, "Layers").
 */
export * from './message.js';
export * from './format.js';
export * from './errors.js';
export * from './amount.js';
export * from './actors.js';
export * from './chat.js';
export { actorLabel } from './actor-label.js';
export { cutText, graphemePrefix } from './cut-text.js';
export { editDistance, closestOf } from './edit-distance.js';
export { every, type Every } from './every.js';
export { LATE, sleep, watchSlow, within } from './within.js';
export { letThrough } from './let-through.js';
export { currentDeadline, secondsText, withDeadline, type Deadline } from './deadline.js';
export * from './url-safety.js';
export { keepConnected, type Link, type LinkEvents, type LinkState, type LinkStatus } from './keep-connected.js';
export { TRANSIENT_NETWORK_CODES } from './network-errors.js';
