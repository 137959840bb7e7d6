/**
 * Small typed views of the Slack payloads the listeners read. Bolt types a listener's body as a
 * union over every action and view kind; these name only the fields used here, each optional
 * where Slack (or an older client) may leave it out.
 */
export interface SlackUserRef {
  id: string;
  username?: string;
  name?: string;
}
/** A block_actions payload. */
export interface ClickBody {
  user: SlackUserRef;
  channel?: { id?: string };
  container?: { channel_id?: string; thread_ts?: string };
  message?: { thread_ts?: string };
  team?: { id?: string } | null;
  response_url?: string;
  trigger_id?: string;
}
/** One element of block_actions' `actions`. */
export interface ClickAction {
  type?: string;
  action_id?: unknown;
}
/** A view_submission payload. */
export interface SubmitBody {
  user: SlackUserRef;
  team?: { id?: string } | null;
  trigger_id?: string;
}
/** One input's value in a submitted view's state. */
export interface ViewStateElement {
  type?: string;
  value?: unknown;
  selected_option?: { value?: string } | null;
  selected_options?: unknown;
}
export interface ViewState {
  values?: Record<string, Record<string, ViewStateElement>>;
}
