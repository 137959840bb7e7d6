/**
 * The activity room: what happens on a node between status events (payments, channels,
 * transfers, deposits, liquidity, a node that came back locked), seen by polling its API and
 * comparing with the last state kept.
 */
export { diffActivity, localShare } from './diff-activity.js';
export { readActivity, MAX_ASSETS_PER_POLL, type ActivityNodeApi } from './read-activity.js';
export { createActivityPoller, type ActivityPoller, type ActivityPollerOptions } from './create-activity-poller.js';
export * from './types.js';
export { activityItems, activityEventKey, type ActivityItemOut } from './render-activity.js';
export type { PublishContext } from './create-activity-poller.js';
export { createUpgradeFollower, upgradedMessage, type UpgradeFollower, type UpgradeItem } from './upgrade-follower.js';
export { mergeThresholds, DEFAULT_WATCH_THRESHOLDS, WATCH_THRESHOLD_ARGS } from './watch-thresholds.js';
export type { WatchThresholds, WatchProfile, OwnThresholds } from './watch-thresholds.js';
export type { NodeFacts } from './watch-conditions.js';
