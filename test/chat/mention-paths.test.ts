/**
 * Every command that names a person or a group reads a mention in the form each platform sends
 * it: Slack with `should_escape: true` (manifest.yml) sends `<@U123|name>`, `<!subteam^S1|@ops>`,
 * `<#C1|general>` and `&amp;`-escaped text (read by the Slack adapter's readCommandText); Discord
 * sends `<@123>`, `<@!123>`, `<@&42>` and `<#9>`.
 */
import { describe, expect, it } from 'vitest';
import type { Reply } from '../../src/engine/types.js';
import type { Actor, Place } from '../../src/vocabulary/index.js';
import { createRegistry } from '../../src/engine/index.js';
import { allCommands } from '../../commands/index.js';
import { readCommandText } from '../../src/chat/slack/read-command-text.js';
import { messageText } from '../support/reply-text.js';
import { testDispatcher } from '../support/dispatcher.js';

const text = (r: Reply) => (r.kind === 'message' ? messageText(r.message) : JSON.stringify(r));

const PLATFORMS: Array<{
  name: string;
  admin: Actor;
  place: Place;
  typed: (s: string) => string;
  bea: string;
  beaId: string;
  group: string;
  groupId: string;
  channel: string;
  channelId: string;
}> = [
  {
    name: 'Slack (escaped)',
    admin: { platform: 'slack', userId: 'UADMIN' },
    place: { platform: 'slack', channelId: 'C1' },
    typed: readCommandText,
    bea: '<@UBEA|bea>',
    beaId: 'slack:UBEA',
    group: '<!subteam^SOPS|@ops>',
    groupId: 'slack-group:SOPS',
    channel: '<#CGEN|general>',
    channelId: 'CGEN',
  },
  {
    name: 'Discord',
    admin: { platform: 'discord', userId: '100' },
    place: { platform: 'discord', channelId: '9' },
    typed: (s) => s,
    bea: '<@!200>',
    beaId: 'discord:200',
    group: '<@&42>',
    groupId: 'discord-role:42',
    channel: '<#300>',
    channelId: '300',
  },
];

describe.each(PLATFORMS)('mentions on $name', (p) => {
  const d = testDispatcher({
    registry: createRegistry(allCommands),
    admins: [`${p.admin.platform}:${p.admin.userId}`],
    approvalPolicy: 'node.destroy',
  });
  const run = (line: string) => d.dispatch({ via: 'typed', actor: p.admin, place: p.place, text: p.typed(line) });

  it('access grant and revoke read a person, a group and a channel', async () => {
    expect(text(await run(`access grant ${p.bea} operate channels=${p.channel}`))).toContain(
      `${p.beaId} now has the operate role on channels=${p.channelId} only`,
    );
    expect(text(await run(`access grant ${p.group} read`))).toContain(`${p.groupId} now has the read role`);
    expect(text(await run(`access revoke ${p.group}`))).toContain('no longer has its granted role');
  });

  it('policy set limit and policy limits read a person', async () => {
    expect(text(await run(`policy set limit ${p.bea} amount="50k sats"`))).toContain(`${p.beaId} may spend at most 50,000 sats a day`);
    expect(text(await run(`policy limits ${p.bea}`))).toContain('50,000 sats');
  });

  it('audit user= reads a person', async () => {
    await run(`access grant ${p.bea} read`);
    const shown = text(await run(`audit user=${p.admin.platform === 'slack' ? '<@UADMIN|admin>' : '<@100>'}`));
    expect(shown).toContain('access grant');
  });
});

describe('readCommandText', () => {
  it('reads links, channels and escaped characters as typed, and keeps mentions for the commands', () => {
    expect(readCommandText('x url=<https://hooks.example/a?b=1&amp;c=2|hooks.example/a> n=&lt;1&gt;')).toBe(
      'x url=https://hooks.example/a?b=1&c=2 n=<1>',
    );
    expect(readCommandText('access grant <@U1|ann> read channels=<#C9|ops>,<#C8>')).toBe('access grant <@U1|ann> read channels=C9,C8');
  });
});
