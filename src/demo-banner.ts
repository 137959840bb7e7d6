import type { Config } from './config.js';

/** What a newcomer sees first with `npm start` and no configuration. */
export function demoBanner(url: string, config: Config): string {
  const chat = config.slack.mode !== 'off' || config.discord.mode !== 'off';
  return [
    '',
    '┌──────────────────────────────────────────────────────────────────────┐',
    '│  rln-chatops DEMO: a built-in emulator of the hosting service runs   │',
    '│  in-process with three nodes (alice, bob running; carol paused).     │',
    '└──────────────────────────────────────────────────────────────────────┘',
    chat ? '' : 'Type commands here, e.g.:  /rln help   /rln node list   /rln node stop carol   /rln report balance all',
    `HTTP server: ${url}  (/healthz, /metrics, /webhooks/service)`,
    '',
    'To use it for real:',
    '  • the service: set SERVICE_URL and SERVICE_API_TOKEN (and NODE_API_TOKEN)',
    '  • Slack:       create the app from manifest.yml, then set SLACK_BOT_TOKEN and SLACK_APP_TOKEN',
    '  • Discord:     set DISCORD_TOKEN and DISCORD_APPLICATION_ID, then npm run register-commands',
    '  • check it:    npm run doctor',
    '',
  ].join('\n');
}
