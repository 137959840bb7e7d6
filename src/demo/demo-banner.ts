import type { Config } from '../config.js';

/**
 * Commands the banner suggests: each works against the demo's starting state (alice and bob
 * running and unlocked on an older image, carol paused); test/demo.test.ts runs them.
 */
export const DEMO_SUGGESTIONS = [
  '/rln help',
  '/rln node list',
  '/rln node start carol',
  '/rln wallet balance alice',
  '/rln node image',
  '/rln report balance all',
];

/**
 * What a newcomer sees first with `npm start` and no configuration. `kept`: the bot's database was
 * there before this start; `logFile`: where the log goes instead of the screen (terminal only).
 */
export function demoBanner(url: string, config: Config, o: { kept?: boolean; logFile?: string } = {}): string {
  const chat = config.slack.mode !== 'off' || config.discord.mode !== 'off';
  const db = config.DATABASE_URL ? 'the PostgreSQL database (DATABASE_URL)' : config.DATABASE_PATH;
  return [
    '',
    '┌──────────────────────────────────────────────────────────────────────┐',
    '│  rln-chatops DEMO: a built-in emulator of the hosting service runs   │',
    '│  in-process with three nodes (alice, bob running; carol paused).     │',
    '└──────────────────────────────────────────────────────────────────────┘',
    ...(chat
      ? ['']
      : [
          `Type commands here, e.g.:  ${DEMO_SUGGESTIONS.join('   ')}`,
          'Act as someone else: /as reader ann · /as operator bob · /as admin (back to you). Make a node fail: /demo fail bob · more faults: /demo help',
        ]),
    `HTTP server: ${url}  (/healthz, /metrics, /webhooks/service)`,
    ...(o.logFile ? [`Log: ${o.logFile}  (kept off this screen)`] : []),
    '',
    // What a restart keeps (P33): the bot's data, not the emulator's nodes.
    o.kept
      ? `Kept from the last run, in ${db}: schedules, grants, limits, watches and the audit trail.`
      : `Schedules, grants, limits, watches and the audit trail are kept across restarts, in ${db}.`,
    o.kept
      ? 'The nodes are not: the emulator starts again from alice, bob and carol, so nodes made before are gone.'
      : 'The nodes are not: the emulator starts again from alice, bob and carol each time.',
    'Start from nothing: npm start -- --fresh',
    '',
    'To use it for real:',
    '  • the service: set SERVICE_URL and SERVICE_API_TOKEN (and NODE_API_TOKEN)',
    '  • Slack:       create the app from manifest.yml, then set SLACK_BOT_TOKEN and SLACK_APP_TOKEN',
    '  • Discord:     set DISCORD_TOKEN and DISCORD_APPLICATION_ID, then npm run register-commands',
    '  • check it:    npm run doctor',
    '',
  ].join('\n');
}
