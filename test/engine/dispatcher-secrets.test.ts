import { describe, expect, it } from 'vitest';
import { testDispatcher } from '../support/dispatcher.js';
import { z } from 'zod';
import { defineCommand, type Reply } from '../../src/engine/types.js';
import { inlineToPlain } from '../../src/vocabulary/message.js';
import { UserError } from '../../src/vocabulary/errors.js';
import { createRegistry } from '../../src/engine/registry.js';
import { openDatabase } from '../../src/store/index.js';
import { bufferLogger, fakeHosting, slackChannel, slackUser } from '../support/core.js';

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
    throw new UserError(
      'node_error',
      `The unlock of ${ctx.node!.name} failed (node said: bad password "${ctx.secrets.password}").`,
      `Check "${ctx.secrets.password}" and try again.`,
    );
  },
});

describe('dispatcher: a secret quoted in a handler error', () => {
  it('reaches neither the reply, the audit reason nor the log', async () => {
    const db = openDatabase(':memory:');
    const log = bufferLogger();
    const dispatcher = testDispatcher({
      db,
      registry: createRegistry([echoingUnlock]),
      services: { hosting: fakeHosting() as any, nodeApi: () => ({}) as any, now: Date.now },
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
    const shown = [m.header, m.summary, ...m.blocks.map((b) => ('text' in b ? inlineToPlain(b.text as any) : JSON.stringify(b)))].join(
      '\n',
    );
    expect(shown).toContain('The unlock of alice failed');
    expect(shown).not.toContain(password);
    const [entry] = await dispatcher.audit.latest();
    expect(entry.outcome).toBe('failed');
    expect(entry.reason).toContain('[redacted]');
    expect(JSON.stringify(entry)).not.toContain(password);
    const rows = await db.all('SELECT * FROM core_audit');
    expect(JSON.stringify(rows)).not.toContain(password);
    expect(log.text).not.toContain(password);
  });
});

describe('dispatcher: values of arguments a command does not declare', () => {
  it('are refused and never recorded in the audit trail (a mistyped secret name)', async () => {
    const { harness } = await import('../support/core.js');
    const h = harness();
    const admin2 = slackUser('UADMIN');
    for (const text of ['node start alice pin=99887766', 'node unlock alice passwd=hunter2hunter2', 'node start alice pw=s3cr3t-value']) {
      const r = await h.dispatcher.dispatch({ via: 'typed', actor: admin2, place: slackChannel, text });
      expect(r.kind).toBe('message');
      expect((r as Extract<Reply, { kind: 'message' }>).message.tone).toBe('danger');
    }
    const audit = JSON.stringify(await h.dispatcher.audit.latest());
    expect((await h.dispatcher.audit.latest()).length).toBe(3);
    for (const v of ['99887766', 'hunter2hunter2', 's3cr3t-value']) {
      expect(audit).not.toContain(v);
      expect(JSON.stringify(await h.db.all('SELECT * FROM core_audit'))).not.toContain(v);
      expect(h.log.text).not.toContain(v);
    }
    expect(audit).toContain('alice');
  });
});
