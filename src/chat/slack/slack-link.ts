/**
 * The Slack adapter's connection, kept up by keepConnected (issue 27, item 4): the bot token's
 * check (auth.test, once) and, in Socket Mode, the WebSocket. Slack unreachable at start, or later,
 * leaves the rest of the bot up, and the link retries with back-off; only a refused token or app
 * token stops the start.
 *
 * In Socket Mode the client's own reconnect is off: it waits a growing delay per failure with no
 * bound, and a failed `apps.connections.open` during it is a rejection nobody handles (the process
 * would end). The link reconnects instead.
 */
import type { App as BoltApp, SocketModeReceiver } from '@slack/bolt';
import type { Logger } from '../../log.js';
import { keepConnected, type Link, type LinkStatus } from '../../vocabulary/index.js';

/** Errors of Slack's Web API that name a token or app Slack refuses: no retry fixes them. */
const REFUSALS = new Set([
  'invalid_auth',
  'not_authed',
  'account_inactive',
  'token_revoked',
  'token_expired',
  'not_allowed_token_type',
  'missing_scope',
  'no_permission',
  'team_access_not_granted',
  'org_login_required',
]);

/** A refusal of SLACK_BOT_TOKEN or SLACK_APP_TOKEN: start-up stops on it. */
export class SlackRefused extends Error {}

const codeOf = (e: unknown) => (e as { data?: { error?: string } } | undefined)?.data?.error;
const messageOf = (e: unknown) => (e instanceof Error ? e.message : 'the connection closed');

export function slackLink(o: {
  app: BoltApp;
  mode: 'socket' | 'http';
  /** Socket Mode: its receiver, whose client says when the connection drops. */
  receiver?: SocketModeReceiver;
  apiUrlSet: boolean;
  log: Logger;
}): Link {
  const { app, mode, log } = o;
  let initialised = false;
  let started = false;
  let was: LinkStatus['state'] = 'stopped';
  let everUp = false;
  let events: { lost(reason: string): void } | undefined;
  o.receiver?.client.on('disconnected', () => events?.lost('the Socket Mode connection closed'));

  return keepConnected({
    // Slack's routine `disconnect` (it moves the connection) is reconnected at once.
    graceMs: 0,
    connect: async (ev) => {
      events = ev;
      if (!initialised) {
        try {
          await app.init(); // auth.test with the bot token, once
        } catch (e) {
          const code = codeOf(e);
          if (code && REFUSALS.has(code)) {
            throw new SlackRefused(
              `Slack refused SLACK_BOT_TOKEN (auth.test: ${code}). Check the bot token (xoxb-…) of the installed app.`,
              {
                cause: e,
              },
            );
          }
          throw new Error(
            `Slack's Web API could not be reached to check SLACK_BOT_TOKEN (${code ?? messageOf(e)}). Check network access to Slack${o.apiUrlSet ? ' and SLACK_API_URL' : ''}.`,
            { cause: e },
          );
        }
        initialised = true;
      }
      if (mode === 'http' && started) return;
      try {
        await app.start();
        started = true;
      } catch (e) {
        const code = codeOf(e);
        const Kind = code && REFUSALS.has(code) ? SlackRefused : Error;
        throw new Kind(
          `Slack ${mode === 'socket' ? 'Socket Mode could not connect (apps.connections.open)' : 'could not start'}: ${code ?? messageOf(e)}. ` +
            (mode === 'socket'
              ? 'Check SLACK_APP_TOKEN (xapp-… with connections:write) and that Slack is reachable.'
              : 'See the log for details.'),
          { cause: e },
        );
      }
    },
    disconnect: async () => {
      if (mode === 'socket') await o.receiver?.client.disconnect();
    },
    isFatal: (e) => e instanceof SlackRefused,
    onChange: (s, err) => {
      if (s.state === 'down' && s.retryAt) {
        const retryInS = Math.max(0, Math.round((s.retryAt - Date.now()) / 1000));
        log.warn({ err, failures: s.failures, retryInS }, 'Slack is unreachable; the rest of the bot goes on, and Slack is retried');
      } else if (s.state === 'down') log.warn({ reason: s.reason }, 'the Slack connection dropped; reconnecting');
      else if (s.state === 'up' && !everUp) log.info({ mode }, 'Slack adapter started');
      else if (s.state === 'up' && was === 'down') log.info({ mode }, 'Slack is back');
      if (s.state === 'up') everUp = true;
      was = s.state;
    },
  });
}
