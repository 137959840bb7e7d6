/**
 * Drives the bot as Slack would, in either transport, so one test body covers both:
 * Socket Mode (envelopes over the fake's WebSocket) or HTTP mode (signed POSTs to
 * /slack/events). Every answer (envelope ack or HTTP response) is put on the fake's timeline.
 */
import type { FakeSlack, RespondCall } from './fake-slack.js';
import {
  blockActionsPayload,
  blockSuggestionPayload,
  postSigned,
  slashCommandPayload,
  viewSubmissionPayload,
  type SlackUser,
} from './payloads.js';

export type SlackMode = 'socket' | 'http';

export interface SlackDriver {
  mode: SlackMode;
  fake: FakeSlack;
  /** `/rln <text>` by `user`; resolves once acknowledged, with the ack body and the response_url given. */
  slash(user: SlackUser, text: string, o?: { channelId?: string }): Promise<{ ack: any; responseUrl: string }>;
  /** A click on the button whose action_id is `actionId`. */
  click(user: SlackUser, actionId: string, o?: { channelId?: string }): Promise<{ ack: any; responseUrl: string }>;
  /** `/rln <text>` by `user`, resolved with the bot's first answer to its response_url. */
  ask(user: SlackUser, text: string, o?: { channelId?: string }): Promise<RespondCall>;
  /** A click on a button, resolved with the bot's first answer to its response_url. */
  press(user: SlackUser, actionId: string, o?: { channelId?: string }): Promise<RespondCall>;
  /** Submits `view` (as opened through views.open) with these values by block id. */
  submit(user: SlackUser, view: Record<string, any>, values: Record<string, string | boolean>): Promise<{ ack: any }>;
  /** An external select asking for options. */
  suggest(user: SlackUser, actionId: string, value: string): Promise<{ ack: any }>;
}

export function createSlackDriver(fake: FakeSlack, mode: SlackMode, http?: { eventsUrl: string; signingSecret: string }): SlackDriver {
  async function deliver(kind: 'slash_commands' | 'interactive', payload: Record<string, any>): Promise<any> {
    if (mode === 'socket') return fake.sendEnvelope(kind, payload);
    if (!http) throw new Error('HTTP mode needs eventsUrl and signingSecret');
    const form = kind === 'slash_commands' ? (payload as Record<string, string>) : { payload: JSON.stringify(payload) };
    const res = await postSigned(http.eventsUrl, http.signingSecret, form);
    fake.mark({ kind: 'http_ack', status: res.status });
    if (res.status !== 200) throw new Error(`HTTP mode answered ${res.status}: ${res.text}`);
    return res.body;
  }
  return {
    mode,
    fake,
    async slash(user, text, o = {}) {
      const responseUrl = fake.responseUrl();
      const ack = await deliver(
        'slash_commands',
        slashCommandPayload({ user, text, responseUrl, channelId: o.channelId, teamId: fake.teamId }),
      );
      return { ack, responseUrl };
    },
    async click(user, actionId, o = {}) {
      const responseUrl = fake.responseUrl();
      const ack = await deliver(
        'interactive',
        blockActionsPayload({ user, actionId, responseUrl, channelId: o.channelId, teamId: fake.teamId }),
      );
      return { ack, responseUrl };
    },
    async ask(user, text, o = {}) {
      const { responseUrl } = await this.slash(user, text, o);
      const [answer] = await fake.waitForResponds(responseUrl);
      return answer;
    },
    async press(user, actionId, o = {}) {
      const { responseUrl } = await this.click(user, actionId, o);
      const [answer] = await fake.waitForResponds(responseUrl);
      return answer;
    },
    async submit(user, view, values) {
      return { ack: await deliver('interactive', viewSubmissionPayload({ user, view, values, teamId: fake.teamId })) };
    },
    async suggest(user, actionId, value) {
      return { ack: await deliver('interactive', blockSuggestionPayload({ user, actionId, value })) };
    },
  };
}
