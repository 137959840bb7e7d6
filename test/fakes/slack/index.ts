export { startFakeSlack } from './fake-slack.js';
export type { FakeSlack, ApiCall, RespondCall, TimelineEntry, ScriptedFailure, FakeUpload } from './fake-slack.js';
export * from './payloads.js';
export { createSlackDriver } from './slack-driver.js';
export type { SlackDriver, SlackMode } from './slack-driver.js';
