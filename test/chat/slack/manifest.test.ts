/**
 * manifest.yml must match the code: the slash command the Slack adapter listens to, the
 * bot scopes the Web API methods it calls need (no more, no fewer), Socket Mode and
 * interactivity, and App Home when the code sends direct messages.
 */
import { describe, it, expect } from 'vitest';
import { readFileSync, readdirSync } from 'node:fs';
import { parse } from 'yaml';

const root = new URL('../../../', import.meta.url);
const manifest = parse(readFileSync(new URL('manifest.yml', root), 'utf8'));
const slackDir = new URL('src/chat/slack/', root);
const slackSource = readdirSync(slackDir)
  .filter((f) => f.endsWith('.ts'))
  .map((f) => readFileSync(new URL(f, slackDir), 'utf8'))
  .join('\n');

/** The bot scopes each Web API method needs (api.slack.com/methods). */
const SCOPES_BY_METHOD: Record<string, string[]> = {
  // chat:write.public: watches and schedules post to channels the bot was never invited to
  // (a slash command works in any channel; posting there later needs this scope).
  'chat.postMessage': ['chat:write', 'chat:write.public'],
  'chat.update': ['chat:write'],
  'chat.postEphemeral': ['chat:write'],
  'views.open': [],
  'views.update': [],
  'views.publish': [],
  'auth.test': [],
  'conversations.open': ['im:write'],
  'usergroups.users.list': ['usergroups:read'],
  'usergroups.list': ['usergroups:read'],
  'users.info': ['users:read'],
  // Uploads (charts, QR codes, logs): the two steps of Slack's external upload.
  'files.getUploadURLExternal': ['files:write'],
  'files.completeUploadExternal': ['files:write'],
  // Sharing a file needs membership: the bot joins public channels before it uploads there.
  'conversations.join': ['channels:join'],
};

function methodsCalled(source: string): string[] {
  const found = new Set<string>();
  // A formatted call chain may break before a dot: `client.usergroups\n  .list(`.
  for (const m of source.matchAll(/\.(chat|views|conversations|users|usergroups|auth|files)\s*\.([a-zA-Z]+(?:\s*\.[a-zA-Z]+)?)\s*\(/g))
    found.add(`${m[1]}.${m[2].replace(/\s+/g, '')}`);
  for (const m of source.matchAll(/apiCall\(\s*['"]([a-z]+\.[a-zA-Z.]+)['"]/g)) found.add(m[1]);
  return [...found].sort();
}

describe('manifest.yml', () => {
  it('declares the slash command the adapter listens to', () => {
    const listened = [...slackSource.matchAll(/command \?\? '(\/[a-z-]+)'|app\.command\('(\/[a-z-]+)'/g)].map((m) => m[1] ?? m[2]);
    expect(listened.length).toBeGreaterThan(0);
    const declared = manifest.features.slash_commands.map((c: { command: string }) => c.command);
    expect(declared.sort()).toEqual([...new Set(listened)].sort());
    for (const c of manifest.features.slash_commands) {
      expect(c.description.length).toBeGreaterThan(0);
      expect(c.usage_hint.length).toBeGreaterThan(0);
    }
  });

  it('asks for exactly the bot scopes the code needs', () => {
    const methods = methodsCalled(slackSource);
    expect(methods).toContain('chat.postMessage');
    const unknown = methods.filter((m) => !(m in SCOPES_BY_METHOD));
    expect(unknown, `add these methods to SCOPES_BY_METHOD: ${unknown.join(', ')}`).toEqual([]);
    const needed = new Set(['commands', ...methods.flatMap((m) => SCOPES_BY_METHOD[m])]);
    expect([...manifest.oauth_config.scopes.bot].sort()).toEqual([...needed].sort());
  });

  it('turns on interactivity (buttons, dialogs, node suggestions) and Socket Mode', () => {
    expect(slackSource).toMatch(/app\.action\(/);
    expect(slackSource).toMatch(/app\.view\(/);
    expect(manifest.settings.interactivity.is_enabled).toBe(true);
    expect(slackSource).toMatch(/SocketModeReceiver/);
    expect(manifest.settings.socket_mode_enabled).toBe(true);
  });

  it('enables the App Home messages tab because the bot answers by direct message', () => {
    expect(slackSource).toMatch(/channel: route\.userId/);
    expect(manifest.features.app_home.messages_tab_enabled).toBe(true);
  });

  it('enables the Home tab and subscribes to app_home_opened, which the adapter listens to', () => {
    expect(slackSource).toMatch(/app\.event\('app_home_opened'/);
    expect(slackSource).toMatch(/views\.publish\(/);
    expect(manifest.features.app_home.home_tab_enabled).toBe(true);
    expect(manifest.settings.event_subscriptions.bot_events).toEqual(['app_home_opened']);
  });

  it('has Slack escape mentions in /rln, the form every mention argument reads (<@U…>)', () => {
    for (const c of manifest.features.slash_commands) expect(c.should_escape, c.command).toBe(true);
  });

  it('has a name and a description', () => {
    expect(manifest.display_information.name).toMatch(/\S/);
    expect(manifest.display_information.description.length).toBeLessThanOrEqual(139);
  });
});
