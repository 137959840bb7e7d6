import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineCommand, type Reply } from '../../src/core/types.js';
import { inlineToPlain } from '../../src/core/message.js';
import { UserError } from '../../src/core/errors.js';
import { createRegistry } from '../../src/core/registry.js';
import { createDispatcher } from '../../src/core/create-dispatcher.js';
import { openDatabase } from '../../src/store/index.js';
import { bufferLogger, fakeHosting, slackChannel, slackUser } from './support.js';

const admin = slackUser('UADMIN');

/** A command whose failure quotes what the node answered, which here echoes the password. */
const echoingUnlock = defineCommand({
  path: 'node unlock',
  summary: 'Unlock a node',
  example: '/rln node unlock alice',
  args: z.object({ node: z.string().min(1).describe('Node') }),
  role: 'admin',
  confirm: 'none',
  secrets: [{ name: 'password', label: 'Node password', kind: 'secret', required: true }],
  mutates: true,
  handler: async (ctx) => {
    throw new UserError('node_error', `The unlock of ${ctx.node!.name} failed (node said: bad password "${ctx.secrets.password}").`, `Check "${ctx.secrets.password}" and try again.`);
  },
});

describe('dispatcher: a secret quoted in a handler error', () => {
  it('reaches neither the reply, the audit reason nor the log', async () => {
    const db = openDatabase(':memory:');
    const log = bufferLogger();
    const dispatcher = createDispatcher({
      db,
      registry: createRegistry([echoingUnlock]),
      services: { hosting: fakeHosting() as any, nodeApi: () => ({}) as any, now: () => new Date() } as any,
      admins: ['slack:UADMIN'],
      logger: log.logger,
    });
    const opened = await dispatcher.dispatch({ via: 'typed', actor: admin, place: slackChannel, text: 'node unlock alice' });
    expect(opened.kind).toBe('dialog');
    const dialogId = (opened as Extract<Reply, { kind: 'dialog' }>).dialog.id;
    const password = 'correct-horse-battery-77';
    const r = await dispatcher.dispatch({ via: 'dialog', actor: admin, place: slackChannel, dialogId, values: { password } });
    expect(r.kind).toBe('message');
    const m = (r as Extract<Reply, { kind: 'message' }>).message;
    const shown = [m.header, m.summary, ...m.blocks.map((b) => ('text' in b ? inlineToPlain(b.text as any) : JSON.stringify(b)))].join('\n');
    expect(shown).toContain('The unlock of alice failed');
    expect(shown).not.toContain(password);
    const [entry] = dispatcher.audit.latest();
    expect(entry!.outcome).toBe('failed');
    expect(entry!.reason).toContain('[redacted]');
    expect(JSON.stringify(entry)).not.toContain(password);
    const rows = db.prepare('SELECT * FROM core_audit').all();
    expect(JSON.stringify(rows)).not.toContain(password);
    expect(log.text).not.toContain(password);
  });
});
