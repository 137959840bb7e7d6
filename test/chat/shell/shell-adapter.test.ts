import { describe, expect, it } from 'vitest';
import { PassThrough } from 'node:stream';
import { createShellAdapter } from '../../../src/chat/shell/index.js';
import { z } from 'zod';
import { fakeCommands, fakeHosting, harness, type Calls } from '../../support/core.js';
import { testDispatcher } from '../../support/dispatcher.js';
import { createRegistry } from '../../../src/engine/registry.js';
import { defineCommand } from '../../../src/engine/types.js';
import { waitFor } from '../../support/wait-for.js';

function io() {
  const input = new PassThrough();
  const output = new PassThrough();
  let text = '';
  output.on('data', (c) => (text += c.toString()));
  return { input, output, text: () => text };
}

/** Waits until the output contains `s` (the adapter answers asynchronously). */
async function until(read: () => string, s: string | RegExp, ms = 5000) {
  await waitFor(() => (typeof s === 'string' ? read().includes(s) : s.test(read())), {
    timeout: ms,
    interval: 5,
    what: () => `output containing ${s}:\n${read()}`,
  });
}

describe('shell adapter', () => {
  it('runs a typed command (with or without /rln) and prints plain text', async () => {
    const h = harness();
    const t = io();
    const shell = createShellAdapter({ dispatcher: h.dispatcher, input: t.input, output: t.output, prompt: false });
    await shell.start();
    t.input.write('/rln node info alice\n');
    t.input.write('node list\n');
    t.input.end();
    await shell.done;
    expect(t.text()).toContain('✔ Node alice');
    expect(t.text()).toContain('Status: RUNNING');
    expect(t.text()).toContain('carol-prod');
  });

  it('confirms by typing the button hint, as the local admin', async () => {
    const h = harness();
    const t = io();
    const shell = createShellAdapter({ dispatcher: h.dispatcher, input: t.input, output: t.output, prompt: false });
    await shell.start();
    t.input.write('node stop alice\n');
    await until(t.text, /type: confirm (b_\S+)/);
    const id = /type: confirm (b_\S+)/.exec(t.text())![1];
    t.input.write(`confirm ${id}\n`);
    await until(t.text, 'Stopping alice');
    shell.stop();
    await shell.done;
    expect(h.calls.stop).toEqual(['n-111']);
    expect((await h.dispatcher.audit.latest({ limit: 1 }))[0]).toMatchObject({
      outcome: 'ok',
      actor: { platform: 'shell', userId: 'local' },
    });
  });

  it('prompts a dialog field by field: a wrong name is refused, then the right one destroys', async () => {
    const h = harness();
    const t = io();
    const shell = createShellAdapter({ dispatcher: h.dispatcher, input: t.input, output: t.output, prompt: false });
    await shell.start();
    t.input.write('/rln node destroy alice\n');
    await until(t.text, "Type the node's name to confirm");
    // The prompt does not give the answer away (P43).
    expect(t.text()).toContain("Type the node's name to confirm: ");
    expect(t.text()).not.toContain('(e.g. alice)');
    expect(t.text()).not.toContain('[alice]');
    t.input.write('alcie\n');
    await until(t.text, '[Y/n]');
    t.input.write('n\n');
    // No backup: its password is not asked for.
    await until(t.text, "That is not the node's name");
    expect(t.text()).not.toContain('Node password (for the backup)');
    expect(h.calls.destroy).toEqual([]);
    t.input.write('alice\n');
    await until(t.text, 'Destroyed alice');
    t.input.end();
    await shell.done;
    expect(h.calls.destroy).toEqual([{ node: 'n-111', backup: 'false', backup_password: undefined }]);
  });

  it('asks for the backup password when backing up first, and says (optional) once', async () => {
    const h = harness();
    const t = io();
    const shell = createShellAdapter({ dispatcher: h.dispatcher, input: t.input, output: t.output, prompt: false });
    await shell.start();
    t.input.write('/rln node destroy alice\n');
    await until(t.text, "Type the node's name to confirm");
    t.input.write('alice\n');
    await until(t.text, '[Y/n]');
    t.input.write('y\n');
    await until(t.text, 'Node password (for the backup) (optional: Enter to skip): ');
    expect(t.text()).not.toContain('(optional) (optional)');
    t.input.write('\n');
    await until(t.text, /Destroyed alice|✖/);
    t.input.end();
    await shell.done;
  });

  it('stops at a No to a box that is the confirmation: the password is not asked, nothing is done', async () => {
    for (const no of ['', 'nope']) {
      const h = harness();
      const t = io();
      const shell = createShellAdapter({ dispatcher: h.dispatcher, input: t.input, output: t.output, prompt: false });
      await shell.start();
      t.input.write('/rln node restore alice\n');
      await until(t.text, "Replace this node's wallet [y/N]");
      t.input.write(`${no}\n`);
      await until(t.text, 'Cancelled');
      expect(t.text()).toContain('was not confirmed, so nothing was done');
      expect(t.text()).not.toContain('Password of the backup');
      t.input.end();
      await shell.done;
      expect(h.calls.restore ?? []).toEqual([]);
    }
  });

  it('cancels on an empty answer to a yes/no box asked again, whatever its default (P22)', async () => {
    for (const initial of ['false', 'true'] as const) {
      const calls: Calls = { stop: [], info: [], unlock: [], destroy: [] };
      const wiped: string[] = [];
      // A box that is not the confirmation, refused by the dialog's check until it is ticked: it is asked again.
      const wipe = defineCommand({
        path: 'node wipe',
        summary: 'Wipe a node',
        example: '/rln node wipe alice',
        args: z.object({ node: z.string().min(1).describe('Node name or id') }),
        role: 'admin',
        confirm: 'none',
        secrets: [{ name: 'agree', label: 'Wipe everything', kind: 'checkbox', initial }],
        dialog: { check: (v): Record<string, string> => (v.agree === 'true' ? {} : { agree: 'Tick the box to wipe.' }) },
        mutates: true,
        handler: async (ctx) => {
          wiped.push(ctx.node!.nodeId);
          return { header: `Wiped ${ctx.node!.name}`, tone: 'success', blocks: [] };
        },
      });
      const dispatcher = testDispatcher({
        registry: createRegistry([...fakeCommands(calls), wipe]),
        services: { hosting: fakeHosting() as never, nodeApi: () => ({}) as never },
      });
      const t = io();
      const shell = createShellAdapter({ dispatcher, input: t.input, output: t.output, prompt: false });
      await shell.start();
      t.input.write('/rln node wipe alice\n');
      const box = initial === 'true' ? 'Wipe everything [Y/n]' : 'Wipe everything [y/N]';
      await until(t.text, box);
      t.input.write('n\n');
      await until(t.text, 'leave it empty to cancel');
      expect(t.text()).toContain('✖ agree: Tick the box to wipe.');
      expect(t.text().split(box).length).toBe(3);
      // Empty, asked again: cancelled, even where Enter would have meant Yes the first time.
      t.input.write('\n');
      await until(t.text, 'Cancelled: nothing was done.');
      t.input.end();
      await shell.done;
      expect(wiped).toEqual([]);
      expect(t.text().split('leave it empty to cancel').length).toBe(2);
    }
  });

  it("reads a checkbox answer with the dispatcher's words: 'ok' backs up first", async () => {
    const h = harness();
    const t = io();
    const shell = createShellAdapter({ dispatcher: h.dispatcher, input: t.input, output: t.output, prompt: false });
    await shell.start();
    t.input.write('/rln node destroy alice\n');
    await until(t.text, "Type the node's name to confirm");
    t.input.write('alice\n');
    await until(t.text, '[Y/n]');
    t.input.write('ok\n');
    await until(t.text, /Node password \(for the backup\)|Destroyed alice/);
    expect(t.text()).toContain('Node password (for the backup)');
    t.input.end();
    await shell.done;
  });

  it('asks a secret in a dialog and never prints it', async () => {
    const h = harness();
    const t = io();
    const shell = createShellAdapter({ dispatcher: h.dispatcher, input: t.input, output: t.output, prompt: false });
    await shell.start();
    t.input.write('node unlock alice\n');
    await until(t.text, 'Node password: ');
    t.input.write('s3cret-pass\n');
    await until(t.text, 'Unlocked alice');
    t.input.end();
    await shell.done;
    expect(h.calls.unlock).toEqual([{ node: 'n-111', password: 's3cret-pass' }]);
    expect(t.text()).not.toContain('s3cret-pass');
  });

  it('prints errors and posted messages with a prefix', async () => {
    const h = harness();
    const t = io();
    const shell = createShellAdapter({ dispatcher: h.dispatcher, input: t.input, output: t.output, prompt: false });
    await shell.start();
    t.input.write('nod lst\n');
    await until(t.text, 'Did you mean `/rln node list`');
    const posted = await shell.poster.post({ channelId: 'terminal' }, { header: 'alice is FAILED', tone: 'danger', blocks: [] });
    await shell.poster.update(
      { channelId: 'terminal', messageId: posted.messageId },
      { header: 'alice is RUNNING', tone: 'success', blocks: [] },
    );
    expect(t.text()).toContain(`[#terminal · ${posted.messageId}]`);
    expect(t.text()).toContain('│ ✖ alice is FAILED');
    expect(t.text()).toContain(`${posted.messageId} updated]`);
    t.input.write('exit\n');
    await shell.done;
  });
});
