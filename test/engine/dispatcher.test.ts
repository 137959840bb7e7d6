import { describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Reply } from '../../src/engine/types.js';
import { inlineToPlain, type Message } from '../../src/vocabulary/message.js';
import { openDatabase } from '../../src/store/index.js';
import { CONFIRM_NAME_FIELD } from '../../src/engine/index.js';
import { testDispatcher } from '../support/dispatcher.js';
import { defineCommand } from '../../commands/index.js';

/** The destroy dialog's own fields, as the command declares them (test/support/core.ts, commands/node.ts). */
const BACKUP_FIELD = 'backup';
const BACKUP_PASSWORD_FIELD = 'backup_password';
import { createMetrics } from '../../src/metrics.js';
import { harness, slackChannel, slackUser } from '../support/core.js';

const ops = slackUser('UOPS', { displayName: 'Olga' });
const admin = slackUser('UADMIN', { displayName: 'Ada' });
const reader = slackUser('UREAD');

function message(r: Reply): Message {
  expect(r.kind).toBe('message');
  return (r as Extract<Reply, { kind: 'message' }>).message;
}

/** Everything a person would read in the message. */
function textOf(r: Reply): string {
  const m = message(r);
  const parts = [m.header ?? '', m.summary ?? ''];
  for (const b of m.blocks) {
    if (b.type === 'text' || b.type === 'context') parts.push(inlineToPlain(b.text));
    if (b.type === 'fields') for (const f of b.fields) parts.push(`${f.label}: ${inlineToPlain(f.value)}`);
    if (b.type === 'table') parts.push(b.table.rows.flat().join(' '));
    if (b.type === 'code') parts.push(b.text);
  }
  return parts.join('\n');
}

const typed = (actor = ops, text: string) => ({ via: 'typed' as const, actor, place: slackChannel, text });

function buttonId(r: Reply, label: string): string {
  const b = message(r).buttons?.find((x) => x.label === label);
  expect(b?.id).toBeTruthy();
  expect(b!.id!.length).toBeLessThanOrEqual(24);
  return b!.id!;
}

describe('dispatcher: typed commands', () => {
  it('resolves the node by name or id and runs the handler', async () => {
    const h = harness();
    const byName = await h.dispatcher.dispatch(typed(reader, '/rln node info alice'));
    expect(message(byName).header).toBe('Node alice');
    expect((byName as any).visibility).toBe('channel');
    await h.dispatcher.dispatch(typed(reader, '/rln node info n-222'));
    expect(h.calls.info).toEqual(['n-111', 'n-222']);
    // The node list is cached between commands.
    expect(h.hosting.listCalls).toBe(1);
  });

  it('takes Discord-style path and options as well', async () => {
    const h = harness();
    const r = await h.dispatcher.dispatch({ via: 'typed', actor: reader, place: slackChannel, path: 'node info', args: { node: 'bob' } });
    expect(message(r).header).toBe('Node bob');
  });

  it('names the closest nodes and node list for an unknown node', async () => {
    const h = harness();
    const r = await h.dispatcher.dispatch(typed(reader, '/rln node info alcie'));
    expect(message(r).tone).toBe('danger');
    expect(textOf(r)).toContain('alice');
    expect(textOf(r)).toContain('node list');
    expect((r as any).visibility).toBe('private');
  });

  it('says which argument is wrong and shows the example', async () => {
    const h = harness();
    const r = await h.dispatcher.dispatch(typed(ops, '/rln report schedule alice cron=x kind=weekly'));
    expect(textOf(r)).toContain('`kind`');
    expect(textOf(r)).toContain('balance, channels');
    expect(textOf(r)).toContain('/rln report schedule alice cron="0 9 * * *"');
    const missing = await h.dispatcher.dispatch(typed(ops, '/rln report schedule alice'));
    expect(textOf(missing)).toContain('`cron`');
    const unknownKey = await h.dispatcher.dispatch(typed(ops, '/rln node start alice colour=red'));
    expect(textOf(unknownKey)).toContain('no argument `colour`');
  });

  it('converts numbers written as text through the schema (z.coerce.number)', async () => {
    const h = harness();
    const r = await h.dispatcher.dispatch(typed(ops, '/rln report schedule alice cron="0 9 * * *" count=3'));
    expect(message(r).header).toBe('Scheduled balance at 0 9 * * * x3');
  });

  it('counts commands by outcome in metrics', async () => {
    const metrics = createMetrics({ defaults: false });
    const h = harness({ dispatcher: { metrics } });
    await h.dispatcher.dispatch(typed(reader, '/rln node info alice'));
    await h.dispatcher.dispatch(typed(reader, '/rln node start alice'));
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/rln_chatops_commands_total\{command="node info",outcome="ok"\} 1/);
    expect(text).toMatch(/rln_chatops_commands_total\{command="node start",outcome="refused"\} 1/);
  });
});

describe('dispatcher: roles', () => {
  it('refuses a change to a reader, says which role is needed and how to get it, and audits it', async () => {
    const h = harness();
    const r = await h.dispatcher.dispatch(typed(reader, '/rln node start alice'));
    const text = textOf(r);
    expect(text).toContain('operate');
    expect(text).toContain('/rln access grant slack:UREAD operate');
    const [entry] = await h.dispatcher.audit.latest({ limit: 5 });
    expect(entry).toMatchObject({ path: 'node start', outcome: 'refused', node: 'alice', nodeId: 'n-111' });
    expect(entry.actor.userId).toBe('UREAD');
  });

  it('gives operators their role by user or by group, and the shell user is admin', async () => {
    const h = harness();
    expect(await h.dispatcher.roles.roleOf(ops)).toBe('operate');
    expect(await h.dispatcher.roles.roleOf(slackUser('UX', { groups: ['SOPS'] }))).toBe('operate');
    expect(await h.dispatcher.roles.roleOf({ platform: 'shell', userId: 'local' })).toBe('admin');
    expect(await h.dispatcher.roles.roleOf(reader)).toBe('read');
  });

  it('applies a grant at once, stores it, and a revoke removes it', async () => {
    const h = harness();
    const grant = await h.dispatcher.dispatch(typed(admin, '/rln access grant slack:UREAD operate'));
    expect(message(grant).tone).toBe('success');
    expect(message(await h.dispatcher.dispatch(typed(reader, '/rln node start alice'))).header).toBe('Starting alice');
    // Stored: a new dispatcher on the same database sees it.
    expect(await h.restart().roles.roleOf(reader)).toBe('operate');
    await h.dispatcher.dispatch(typed(admin, '/rln access revoke slack:UREAD'));
    expect(message(await h.dispatcher.dispatch(typed(reader, '/rln node start alice'))).tone).toBe('danger');
  });

  it('refuses access grant to an operator', async () => {
    const h = harness();
    const r = await h.dispatcher.dispatch(typed(ops, '/rln access grant slack:UOPS admin'));
    expect(textOf(r)).toContain('admin role');
    expect(await h.dispatcher.roles.roleOf(ops)).toBe('operate');
    expect((await h.dispatcher.audit.latest({ limit: 1 }))[0]).toMatchObject({ path: 'access grant', outcome: 'refused' });
  });
});

describe('dispatcher: button confirmation', () => {
  it("asks with Confirm/Cancel, runs once on the requester's click and replaces the prompt", async () => {
    const h = harness();
    const prompt = await h.dispatcher.dispatch(typed(ops, '/rln node stop alice'));
    expect((prompt as any).visibility).toBe('channel');
    expect(message(prompt).tone).toBe('warning');
    expect(message(prompt).buttons?.find((b) => b.label === 'Confirm')?.style).toBe('danger');
    expect(h.calls.stop).toEqual([]);
    const confirm = buttonId(prompt, 'Confirm');

    const done = await h.dispatcher.dispatch({ via: 'button', actor: ops, place: slackChannel, buttonId: confirm });
    expect(message(done).header).toBe('Stopping alice');
    expect((done as any).replaceOriginal).toBe(true);
    expect(h.calls.stop).toEqual(['n-111']);

    const again = await h.dispatcher.dispatch({ via: 'button', actor: ops, place: slackChannel, buttonId: confirm });
    expect(textOf(again)).toContain('already used');
    expect(h.calls.stop).toEqual(['n-111']);
    expect((await h.dispatcher.audit.latest({ node: 'alice', limit: 5 })).map((e) => e.outcome)).toEqual(['refused', 'ok']);
  });

  it('refuses another user privately, audits it, and the requester can still confirm', async () => {
    const h = harness();
    const prompt = await h.dispatcher.dispatch(typed(ops, '/rln node stop alice'));
    const confirm = buttonId(prompt, 'Confirm');
    const other = await h.dispatcher.dispatch({ via: 'button', actor: admin, place: slackChannel, buttonId: confirm });
    expect((other as any).visibility).toBe('private');
    expect((other as any).replaceOriginal).toBeFalsy();
    expect(textOf(other)).toContain('Only Olga');
    expect(h.calls.stop).toEqual([]);
    expect((await h.dispatcher.audit.latest({ limit: 1 }))[0]).toMatchObject({ outcome: 'refused', actor: { userId: 'UADMIN' } });
    await h.dispatcher.dispatch({ via: 'button', actor: ops, place: slackChannel, buttonId: confirm });
    expect(h.calls.stop).toEqual(['n-111']);
  });

  it('refuses a click after expiry with a clear message', async () => {
    const h = harness();
    const prompt = await h.dispatcher.dispatch(typed(ops, '/rln node stop alice'));
    h.clock.t += 5 * 60_000 + 1;
    const late = await h.dispatcher.dispatch({ via: 'button', actor: ops, place: slackChannel, buttonId: buttonId(prompt, 'Confirm') });
    expect(textOf(late)).toContain('expired');
    expect(h.calls.stop).toEqual([]);
  });

  it('re-checks the role at the click', async () => {
    const h = harness();
    await h.dispatcher.dispatch(typed(admin, '/rln access grant slack:UREAD operate'));
    const prompt = await h.dispatcher.dispatch(typed(reader, '/rln node stop alice'));
    await h.dispatcher.dispatch(typed(admin, '/rln access revoke slack:UREAD'));
    const r = await h.dispatcher.dispatch({ via: 'button', actor: reader, place: slackChannel, buttonId: buttonId(prompt, 'Confirm') });
    expect(textOf(r)).toContain('operate role');
    expect(h.calls.stop).toEqual([]);
  });

  it('survives a restart: a new dispatcher on the same database file accepts the click', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rln-core-'));
    try {
      const file = join(dir, 'bot.db');
      const first = harness({ db: openDatabase(file) });
      const prompt = await first.dispatcher.dispatch(typed(ops, '/rln node stop alice'));
      void first.db.close();
      const second = harness({ db: openDatabase(file) });
      const done = await second.dispatcher.dispatch({
        via: 'button',
        actor: ops,
        place: slackChannel,
        buttonId: buttonId(prompt, 'Confirm'),
      });
      expect(message(done).header).toBe('Stopping alice');
      expect(second.calls.stop).toEqual(['n-111']);
      void second.db.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('cancels: nothing runs and the confirmation cannot be used afterwards', async () => {
    const h = harness();
    const prompt = await h.dispatcher.dispatch(typed(ops, '/rln node stop alice'));
    const cancelled = await h.dispatcher.dispatch({ via: 'button', actor: ops, place: slackChannel, buttonId: buttonId(prompt, 'Cancel') });
    expect((cancelled as any).replaceOriginal).toBe(true);
    expect(textOf(cancelled)).toContain('cancelled');
    const late = await h.dispatcher.dispatch({ via: 'button', actor: ops, place: slackChannel, buttonId: buttonId(prompt, 'Confirm') });
    expect(message(late).tone).toBe('danger');
    expect(h.calls.stop).toEqual([]);
  });

  it('runs a stored button through the whole pipeline, role included', async () => {
    const h = harness();
    const prepared = await h.dispatcher.prepareMessage({
      blocks: [],
      buttons: [{ label: 'Start', command: 'node start', args: { node: 'bob' } }],
    });
    const id = prepared.buttons![0].id!;
    expect(id).toMatch(/^b_[A-Za-z0-9_-]{1,22}$/);
    expect(message(await h.dispatcher.dispatch({ via: 'button', actor: reader, place: slackChannel, buttonId: id })).tone).toBe('danger');
    expect(message(await h.dispatcher.dispatch({ via: 'button', actor: ops, place: slackChannel, buttonId: id })).header).toBe(
      'Starting bob',
    );
    const unknown = await h.dispatcher.dispatch({ via: 'button', actor: ops, place: slackChannel, buttonId: 'b_nope' });
    expect(textOf(unknown)).toContain('expired');
  });
});

describe('dispatcher: typed-name dialog (destroy)', () => {
  it('opens the dialog at once, with no call to the service', async () => {
    const h = harness();
    const r = await h.dispatcher.dispatch(typed(admin, '/rln node destroy alice'));
    expect(r.kind).toBe('dialog');
    expect(h.hosting.listCalls).toBe(0);
    const d = (r as Extract<Reply, { kind: 'dialog' }>).dialog;
    expect(d.fields.map((f) => f.name)).toEqual([CONFIRM_NAME_FIELD, BACKUP_FIELD, BACKUP_PASSWORD_FIELD]);
    expect(d.fields[1]).toMatchObject({ kind: 'checkbox', initial: 'true' });
    expect(d.fields[1].label).toContain('irreversible');
    expect(d.fields[2].kind).toBe('secret');
  });

  it('refuses a wrong name inside the dialog, does nothing, audits it; the right name destroys', async () => {
    const h = harness();
    const d = ((await h.dispatcher.dispatch(typed(admin, '/rln node destroy alice'))) as any).dialog;
    const wrong = await h.dispatcher.dispatch({
      via: 'dialog',
      actor: admin,
      place: slackChannel,
      dialogId: d.id,
      values: { confirm_name: 'alcie', backup: 'false' },
    });
    expect(wrong.kind).toBe('dialog_errors');
    expect((wrong as any).errors.confirm_name).toContain('alice');
    expect(h.calls.destroy).toEqual([]);
    expect((await h.dispatcher.audit.latest({ node: 'alice', limit: 1 }))[0]).toMatchObject({ outcome: 'refused', path: 'node destroy' });

    const right = await h.dispatcher.dispatch({
      via: 'dialog',
      actor: admin,
      place: slackChannel,
      dialogId: d.id,
      values: { confirm_name: 'alice', backup: 'true', backup_password: 'correct horse battery' },
    });
    expect(message(right).header).toBe('Destroyed alice');
    expect(h.calls.destroy).toEqual([{ node: 'n-111', backup: 'true', backup_password: 'correct horse battery' }]);
    const [entry] = await h.dispatcher.audit.latest({ node: 'alice', limit: 1 });
    expect(entry).toMatchObject({ outcome: 'ok', args: { node: 'alice', backup: 'true' } });
    expect(JSON.stringify(await h.dispatcher.audit.latest({ limit: 10 }))).not.toContain('correct horse');
    expect(h.log.text).not.toContain('correct horse');
    // Used once.
    const again = await h.dispatcher.dispatch({
      via: 'dialog',
      actor: admin,
      place: slackChannel,
      dialogId: d.id,
      values: { confirm_name: 'alice', backup: 'false' },
    });
    expect(message(again).tone).toBe('danger');
    expect(h.calls.destroy).toHaveLength(1);
  });

  it("reads a checkbox answered 'ok' as ticked (Discord's yes/no input), however the adapter passed it", async () => {
    const h = harness();
    const d = ((await h.dispatcher.dispatch(typed(admin, '/rln node destroy alice'))) as any).dialog;
    const r = await h.dispatcher.dispatch({
      via: 'dialog',
      actor: admin,
      place: slackChannel,
      dialogId: d.id,
      values: { confirm_name: 'alice', backup: 'OK', backup_password: 'correct horse battery' },
    });
    expect(message(r).header).toBe('Destroyed alice');
    expect(h.calls.destroy).toEqual([{ node: 'n-111', backup: 'true', backup_password: 'correct horse battery' }]);
  });

  it('asks for the password when the backup is ticked without one', async () => {
    const h = harness();
    const d = ((await h.dispatcher.dispatch(typed(admin, '/rln node destroy alice'))) as any).dialog;
    const r = await h.dispatcher.dispatch({
      via: 'dialog',
      actor: admin,
      place: slackChannel,
      dialogId: d.id,
      values: { confirm_name: 'alice', backup: 'true' },
    });
    expect(r.kind).toBe('dialog_errors');
    expect(Object.keys((r as any).errors)).toEqual([BACKUP_PASSWORD_FIELD]);
    expect(h.calls.destroy).toEqual([]);
  });

  it('refuses a non-admin before the dialog, and re-checks the role at submission', async () => {
    const h = harness();
    const r = await h.dispatcher.dispatch(typed(ops, '/rln node destroy alice'));
    expect(textOf(r)).toContain('admin role');
    await h.dispatcher.dispatch(typed(admin, '/rln access grant slack:UREAD admin'));
    const d = ((await h.dispatcher.dispatch(typed(reader, '/rln node destroy alice'))) as any).dialog;
    await h.dispatcher.dispatch(typed(admin, '/rln access revoke slack:UREAD'));
    const sub = await h.dispatcher.dispatch({
      via: 'dialog',
      actor: reader,
      place: slackChannel,
      dialogId: d.id,
      values: { confirm_name: 'alice', backup: 'false' },
    });
    expect(textOf(sub)).toContain('admin role');
    expect(h.calls.destroy).toEqual([]);
  });
});

describe('dispatcher: secrets', () => {
  it('refuses a password typed inline, and it reaches neither the reply, the audit nor the log', async () => {
    const h = harness();
    for (const text of ['/rln node unlock alice password=hunter2secret', '/rln node unlock alice hunter2secret']) {
      const r = await h.dispatcher.dispatch(typed(admin, text));
      expect(textOf(r)).toContain('private dialog');
      expect(JSON.stringify(r)).not.toContain('hunter2secret');
    }
    const d = await h.dispatcher.dispatch({
      via: 'typed',
      actor: admin,
      place: slackChannel,
      path: 'node unlock',
      args: { node: 'alice', password: 'hunter2secret' },
    });
    expect(JSON.stringify(d)).not.toContain('hunter2secret');
    expect(h.calls.unlock).toEqual([]);
    const entries = await h.dispatcher.audit.latest({ limit: 10 });
    expect(entries.length).toBeGreaterThanOrEqual(3);
    expect(entries.every((e) => e.outcome === 'refused')).toBe(true);
    expect(JSON.stringify(entries)).not.toContain('hunter2secret');
    expect(h.log.text).not.toContain('hunter2secret');
    expect(h.log.text).toContain('"outcome":"refused"');
  });

  it('asks for secrets in a dialog and hands them only to the handler', async () => {
    const h = harness();
    const r = await h.dispatcher.dispatch(typed(admin, '/rln node unlock alice'));
    expect(r.kind).toBe('dialog');
    const d = (r as any).dialog;
    expect(d.fields).toEqual([{ name: 'password', label: 'Node password', kind: 'secret', required: true }]);
    const empty = await h.dispatcher.dispatch({ via: 'dialog', actor: admin, place: slackChannel, dialogId: d.id, values: {} });
    expect(empty.kind).toBe('dialog_errors');
    const other = await h.dispatcher.dispatch({
      via: 'dialog',
      actor: ops,
      place: slackChannel,
      dialogId: d.id,
      values: { password: 'p4ssw0rd-typed' },
    });
    expect(message(other).tone).toBe('danger');
    const ok = await h.dispatcher.dispatch({
      via: 'dialog',
      actor: admin,
      place: slackChannel,
      dialogId: d.id,
      values: { password: 'p4ssw0rd-typed' },
    });
    expect(message(ok).header).toBe('Unlocked alice');
    expect(h.calls.unlock).toEqual([{ node: 'n-111', password: 'p4ssw0rd-typed' }]);
    expect(JSON.stringify(await h.dispatcher.audit.latest({ limit: 10 }))).not.toContain('p4ssw0rd-typed');
    expect(h.log.text).not.toContain('p4ssw0rd-typed');
  });
});

describe('dispatcher: errors', () => {
  it('shows a service error with its status, message and hint', async () => {
    const err = Object.assign(new Error('POST /api/nodes/{id}/start failed (HTTP 409): busy. Try later.'), {
      name: 'ServiceError',
      endpoint: 'POST /api/nodes/{id}/start',
      status: 409,
      serviceMessage: 'busy',
      hint: 'Try later.',
    });
    const h = harness({ fail: () => err });
    const r = await h.dispatcher.dispatch(typed(ops, '/rln node start alice'));
    const text = textOf(r);
    expect(message(r).tone).toBe('danger');
    expect(text).toContain('409');
    expect(text).toContain('busy');
    expect(text).toContain('Try later.');
    expect((await h.dispatcher.audit.latest({ limit: 1 }))[0]).toMatchObject({ outcome: 'failed' });
  });

  it('suggests node unlock for a locked node', async () => {
    const err = Object.assign(new Error('Node is locked (hint: call unlock)'), {
      name: 'LockedNode',
      endpoint: 'POST /listchannels',
      status: 403,
      rlnName: 'LockedNode',
      hint: 'Unlock it.',
    });
    const h = harness({ fail: () => err });
    const r = await h.dispatcher.dispatch(typed(reader, '/rln node info alice'));
    expect(message(r).header).toContain('LockedNode');
    expect(textOf(r)).toContain('/rln node unlock alice');
  });

  it('hides anything else behind a reference, with the stack only in the log', async () => {
    const h = harness({ fail: () => new TypeError('cannot read x of undefined') });
    const r = await h.dispatcher.dispatch(typed(reader, '/rln node info alice'));
    const text = textOf(r);
    const ref = /ref ([0-9A-F]{6})/.exec(text)?.[1];
    expect(ref).toBeTruthy();
    expect(text).not.toContain('cannot read');
    expect(JSON.stringify(r)).not.toContain('at ');
    expect(h.log.text).toContain(ref!);
    expect(h.log.text).toContain('cannot read x of undefined');
  });

  it('turns a failing node list into a service error reply, not a throw', async () => {
    const h = harness();
    (h.hosting as any).listNodes = async () => {
      throw Object.assign(new Error('GET /api/nodes failed'), {
        name: 'ServiceError',
        endpoint: 'GET /api/nodes',
        status: 503,
        hint: 'Try again later.',
      });
    };
    const r = await h.dispatcher.dispatch(typed(reader, '/rln node info alice'));
    expect(textOf(r)).toContain('503');
    expect(await h.dispatcher.suggestNodes('a')).toEqual([]);
  });
});

describe('dispatcher: suggestNodes', () => {
  it('offers node names by prefix from the cached list', async () => {
    const h = harness();
    expect((await h.dispatcher.suggestNodes('ca')).map((n) => n.name)).toEqual(['carol-prod']);
    expect((await h.dispatcher.suggestNodes('')).map((n) => n.name)).toEqual(['alice', 'bob', 'carol-prod']);
    expect(h.hosting.listCalls).toBe(1);
  });
});

describe('dispatcher: services', () => {
  it('gives handlers the role, audit and registry services of the one services object', async () => {
    const { z } = await import('zod');
    const { createRegistry } = await import('../../src/engine/registry.js');
    const seen: string[] = [];
    const registry = createRegistry([
      defineCommand({
        path: 'probe',
        summary: 'probe',
        example: '/rln probe',
        args: z.object({}),
        role: 'read',
        confirm: 'none',
        mutates: false,
        handler: async (ctx) => {
          seen.push(
            typeof ctx.services.access.roleOf,
            typeof ctx.services.audit.latest,
            String(ctx.services.commands.get('probe')?.path),
            String(ctx.services.publicUrl),
          );
          return { blocks: [] };
        },
      }),
    ]);
    const d = testDispatcher({
      db: openDatabase(':memory:'),
      registry,
      services: { hosting: { listNodes: async () => [] } as any, nodeApi: () => ({}) as any, publicUrl: 'https://bot.example' },
    });
    await d.dispatch({ via: 'typed', actor: reader, place: slackChannel, text: 'probe' });
    expect(seen).toEqual(['function', 'function', 'probe', 'https://bot.example']);
    expect(d.services.access).toBe(d.roles);
  });
});

describe('dispatcher: internal button commands', () => {
  it('runs an internal command only from a button, through the role check', async () => {
    const { z } = await import('zod');
    const acked: string[] = [];
    const h = harness({
      dispatcher: {
        internal: [
          {
            path: '__incident_ack',
            summary: 'Acknowledge an incident',
            example: '(button)',
            args: z.object({ incident: z.string() }),
            role: 'operate',
            confirm: 'none',
            mutates: true,
            handler: async (ctx) => {
              acked.push(String(ctx.args.incident));
              return { header: 'Acknowledged', blocks: [] };
            },
          },
        ],
      },
    });
    const id = (
      await h.dispatcher.prepareMessage({ blocks: [], buttons: [{ label: 'Ack', command: '__incident_ack', args: { incident: 'i1' } }] })
    ).buttons![0].id!;
    expect(message(await h.dispatcher.dispatch({ via: 'button', actor: reader, place: slackChannel, buttonId: id })).tone).toBe('danger');
    expect(message(await h.dispatcher.dispatch({ via: 'button', actor: ops, place: slackChannel, buttonId: id })).header).toBe(
      'Acknowledged',
    );
    expect(acked).toEqual(['i1']);
    // Not typeable.
    expect(message(await h.dispatcher.dispatch(typed(ops, '__incident_ack i1'))).tone).toBe('danger');
    expect((await h.dispatcher.audit.latest({ limit: 1 }))[0]).toMatchObject({ path: '__incident_ack', outcome: 'ok' });
  });
});
