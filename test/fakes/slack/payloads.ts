/**
 * Slack's interaction payloads, as the platform sends them (same object over HTTP and in a
 * Socket Mode envelope), and signed HTTP-mode requests.
 */
import { createHmac } from 'node:crypto';

export interface SlackUser {
  id: string;
  name?: string;
}

export function slashCommandPayload(o: {
  user: SlackUser;
  text: string;
  channelId?: string;
  teamId?: string;
  responseUrl: string;
  command?: string;
  triggerId?: string;
}): Record<string, string> {
  return {
    token: 'verification-token-unused',
    team_id: o.teamId ?? 'T0TEST',
    team_domain: 'fake',
    channel_id: o.channelId ?? 'C0OPS',
    channel_name: 'ops',
    user_id: o.user.id,
    user_name: o.user.name ?? o.user.id.toLowerCase(),
    command: o.command ?? '/rln',
    text: o.text,
    api_app_id: 'AFAKE',
    is_enterprise_install: 'false',
    response_url: o.responseUrl,
    trigger_id: o.triggerId ?? `trigger-${Math.random().toString(36).slice(2)}`,
  };
}

export function blockActionsPayload(o: {
  user: SlackUser;
  actionId: string;
  channelId?: string;
  teamId?: string;
  responseUrl: string;
  messageTs?: string;
}): Record<string, unknown> {
  const ts = o.messageTs ?? '1700000000.000100';
  return {
    type: 'block_actions',
    user: {
      id: o.user.id,
      username: o.user.name ?? o.user.id.toLowerCase(),
      name: o.user.name ?? o.user.id.toLowerCase(),
      team_id: o.teamId ?? 'T0TEST',
    },
    api_app_id: 'AFAKE',
    token: 'verification-token-unused',
    container: { type: 'message', message_ts: ts, channel_id: o.channelId ?? 'C0OPS', is_ephemeral: false },
    trigger_id: `trigger-${Math.random().toString(36).slice(2)}`,
    team: { id: o.teamId ?? 'T0TEST', domain: 'fake' },
    channel: { id: o.channelId ?? 'C0OPS', name: 'ops' },
    message: { type: 'message', ts, text: '' },
    response_url: o.responseUrl,
    actions: [
      {
        type: 'button',
        action_id: o.actionId,
        block_id: 'b1',
        value: o.actionId,
        text: { type: 'plain_text', text: 'x' },
        action_ts: `${Date.now() / 1000}`,
      },
    ],
  };
}

/** The state Slack sends for a view's input blocks, filled with `values` by block id. */
export function viewState(view: Record<string, any>, values: Record<string, string | boolean>): Record<string, any> {
  const state: Record<string, any> = {};
  for (const block of (view.blocks ?? []) as Array<Record<string, any>>) {
    if (block.type !== 'input') continue;
    const el = block.element as Record<string, any>;
    const v = values[block.block_id];
    let entry: Record<string, any>;
    if (el.type === 'checkboxes') entry = { type: 'checkboxes', selected_options: v === true || v === 'true' ? el.options : [] };
    else if (el.type === 'external_select')
      entry = {
        type: 'external_select',
        selected_option: v === undefined ? null : { text: { type: 'plain_text', text: String(v) }, value: String(v) },
      };
    else entry = { type: el.type, value: v === undefined ? null : String(v) };
    state[block.block_id] = { [el.action_id]: entry };
  }
  return { values: state };
}

export function viewSubmissionPayload(o: {
  user: SlackUser;
  view: Record<string, any>;
  values: Record<string, string | boolean>;
  teamId?: string;
}): Record<string, unknown> {
  return {
    type: 'view_submission',
    team: { id: o.teamId ?? 'T0TEST', domain: 'fake' },
    user: {
      id: o.user.id,
      username: o.user.name ?? o.user.id.toLowerCase(),
      name: o.user.name ?? o.user.id.toLowerCase(),
      team_id: o.teamId ?? 'T0TEST',
    },
    api_app_id: 'AFAKE',
    token: 'verification-token-unused',
    trigger_id: `trigger-${Math.random().toString(36).slice(2)}`,
    view: {
      ...o.view,
      team_id: o.teamId ?? 'T0TEST',
      state: viewState(o.view, o.values),
      hash: 'h',
      app_id: 'AFAKE',
      bot_id: 'BBOT',
    },
    response_urls: [],
  };
}

export function blockSuggestionPayload(o: {
  user: SlackUser;
  actionId: string;
  value: string;
  view?: Record<string, any>;
}): Record<string, unknown> {
  return {
    type: 'block_suggestion',
    user: { id: o.user.id, username: o.user.name ?? o.user.id, team_id: 'T0TEST' },
    team: { id: 'T0TEST', domain: 'fake' },
    api_app_id: 'AFAKE',
    token: 'verification-token-unused',
    action_id: o.actionId,
    block_id: o.actionId,
    value: o.value,
    view: o.view ?? { id: 'V0', type: 'modal', callback_id: 'x' },
  };
}

/** `X-Slack-Signature` and `X-Slack-Request-Timestamp` for a raw body. */
export function signSlackRequest(
  signingSecret: string,
  rawBody: string,
  timestampSec = Math.floor(Date.now() / 1000),
): Record<string, string> {
  const sig = 'v0=' + createHmac('sha256', signingSecret).update(`v0:${timestampSec}:${rawBody}`).digest('hex');
  return { 'x-slack-signature': sig, 'x-slack-request-timestamp': String(timestampSec) };
}

export interface SignedPostOptions {
  /** Sign with this secret instead (a forgery). */
  secret?: string;
  timestampSec?: number;
  /** Change the body after signing (tampering). */
  tamper?: (raw: string) => string;
}

/** POSTs a form to the bot's /slack/events, signed like Slack does. */
export async function postSigned(
  eventsUrl: string,
  signingSecret: string,
  form: Record<string, string>,
  o: SignedPostOptions = {},
): Promise<{ status: number; body: any; text: string }> {
  const raw = new URLSearchParams(form).toString();
  const headers = signSlackRequest(o.secret ?? signingSecret, raw, o.timestampSec);
  const res = await fetch(eventsUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: o.tamper ? o.tamper(raw) : raw,
  });
  const text = await res.text();
  let body: any;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = text;
  }
  return { status: res.status, body, text };
}
