import { describe, expect, it } from 'vitest';
import type { Reply } from '../../src/engine/types.js';
import { inlineToPlain } from '../../src/vocabulary/message.js';
import { toPrincipal } from '../../commands/access.js';
import { harness, slackChannel, slackUser } from '../support/core.js';

const admin = slackUser('UADMIN');
const reader = slackUser('UREAD');

function text(r: Reply): string {
  if (r.kind !== 'message') throw new Error(`expected a message, got ${r.kind}`);
  const m = r.message;
  return [
    m.header,
    ...m.blocks.map((b) =>
      'text' in b && typeof b.text !== 'undefined'
        ? inlineToPlain(b.text as any)
        : b.type === 'table'
          ? b.table.rows.map((row) => row.join(' | ')).join('\n')
          : '',
    ),
  ].join('\n');
}

const run = (h: ReturnType<typeof harness>, actor: typeof admin, line: string) =>
  h.dispatcher.dispatch({ via: 'typed', actor, place: slackChannel, text: line });

describe('access commands', () => {
  it('grant stores a role that takes effect at once, and list shows it with who granted it', async () => {
    const h = harness();
    expect(text(await run(h, admin, '/rln access grant slack-group:SDEVS admin'))).toContain('slack-group:SDEVS now has the admin role');
    expect(await h.dispatcher.roles.roleOf(slackUser('UNEW', { groups: ['SDEVS'] }))).toBe('admin');
    const list = text(await run(h, reader, '/rln access list'));
    expect(list).toContain('slack-group:SDEVS | admin | everywhere | grant | slack:UADMIN');
    expect(list).toContain('slack:UADMIN | admin | everywhere | ADMIN_USERS');
    expect(list).toContain('slack:UOPS | operate | everywhere | OPERATOR_USERS');
  });

  it('refuses a malformed principal or role with what to type instead', async () => {
    const h = harness();
    expect(text(await run(h, admin, '/rln access grant bob operate'))).toContain('slack:U123');
    expect(text(await run(h, admin, '/rln access grant slack:U1 superuser'))).toContain('read, operate, admin');
    // `operator` and `reader` are aliases (docs/ARCHITECTURE.md, "Roles"), and a plain @name is refused with the id form.
    expect(text(await run(h, admin, '/rln access grant slack:U1 operator'))).toContain('now has the operate role');
    expect(text(await run(h, admin, '/rln access grant slack:U2 reader'))).toContain('now has the read role');
    const plain = text(await run(h, admin, '/rln access grant @ann operate'));
    expect(plain).toContain('cannot be told apart from a display name');
    expect(plain).toContain('slack:U123');
  });

  it('revoke removes a grant; a role from the configuration says where to change it', async () => {
    const h = harness();
    await run(h, admin, '/rln access grant slack:UREAD operate');
    expect(text(await run(h, admin, '/rln access revoke slack:UREAD'))).toContain('no longer has its granted role');
    expect(await h.dispatcher.roles.roleOf(reader)).toBe('read');
    expect(text(await run(h, admin, '/rln access revoke slack:UOPS'))).toContain('OPERATOR_USERS');
  });

  it('only admins may grant or revoke; the refusal is audited', async () => {
    const h = harness();
    const r = await run(h, reader, '/rln access grant slack:UREAD admin');
    expect(text(r)).toContain('needs the admin role');
    expect(await h.dispatcher.roles.roleOf(reader)).toBe('read');
    expect((await h.dispatcher.audit.latest({ limit: 1 }))[0]).toMatchObject({
      path: 'access grant',
      outcome: 'refused',
      args: { principal: 'slack:UREAD', role: 'admin' },
    });
  });

  it('accepts chat mentions as principals', () => {
    expect(toPrincipal('<@U123|ada>', slackUser('U1'))).toBe('slack:U123');
    expect(toPrincipal('<!subteam^S9|@ops>', slackUser('U1'))).toBe('slack-group:S9');
    expect(toPrincipal('<@&42>', { platform: 'discord', userId: '1' })).toBe('discord-role:42');
    expect(toPrincipal('<@!77>', { platform: 'discord', userId: '1' })).toBe('discord:77');
  });
});
