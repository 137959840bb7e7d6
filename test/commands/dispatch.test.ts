/** The node-operation commands through the real dispatcher: parsing, roles, confirmations, dialogs, errors. */
import { mkdtempSync, rmSync } from 'node:fs';
import { testDispatcher } from '../support/dispatcher.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeCommands } from '../../commands/node.js';
import { walletCommands } from '../../commands/wallet.js';
import { createRegistry, type CoreDispatcher } from '../../src/engine/index.js';
import { openDatabase } from '../../src/store/index.js';
import { PASSWORD, createRunningNode, startEnv, waitForStatus, type TestEnv } from '../support/commands.js';
import { waitFor } from '../support/wait-for.js';
import { replyText } from '../support/reply-text.js';

const place = { platform: 'slack' as const, channelId: 'COPS', workspaceId: 'T1' };
const actor = (userId: string) => ({ platform: 'slack' as const, userId });

describe('node commands through the dispatcher', () => {
  let env: TestEnv;
  let dispatcher: CoreDispatcher;
  let dir: string;
  beforeAll(async () => {
    env = await startEnv();
    dir = mkdtempSync(join(tmpdir(), 'rln-cmd-'));
    dispatcher = testDispatcher({
      db: openDatabase(join(dir, 'bot.db')),
      registry: createRegistry([...nodeCommands, ...walletCommands]),
      services: env.services,
      admins: ['slack:UADMIN'],
      operators: ['slack:UOP'],
      nodeCacheMs: 0,
    });
  });
  afterAll(async () => {
    await env?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const typed = (text: string, userId = 'UADMIN') => dispatcher.dispatch({ via: 'typed', actor: actor(userId), place, text });

  it('init opens a private dialog, and the mnemonic comes back only privately', async () => {
    await createRunningNode(env, 'dsp1');
    const d = await typed('node init dsp1');
    expect(d.kind).toBe('dialog');
    if (d.kind !== 'dialog') return;
    expect(d.dialog.title).toBe('Node init');
    expect(d.dialog.intro).toMatch(/^dsp1: Initialize/);
    const r = await dispatcher.dispatch({
      via: 'dialog',
      actor: actor('UADMIN'),
      place,
      dialogId: d.dialog.id,
      values: { password: PASSWORD, password_repeat: PASSWORD },
    });
    expect(r.kind).toBe('message');
    if (r.kind !== 'message') return;
    expect(r.visibility).toBe('private');
    expect(replyText(r)).toMatch(/write these words down/i);
  });

  it('a password typed inline is refused', async () => {
    const r = await typed(`node unlock dsp1 password=${PASSWORD}`);
    expect(replyText(r)).not.toContain(PASSWORD);
    expect(replyText(r).toLowerCase()).toMatch(/dialog|private|secret|password/);
  });

  it('a locked node answers with a hint to unlock it', async () => {
    const r = await typed('wallet balance dsp1', 'UREADER');
    expect(replyText(r)).toContain('node unlock');
  });

  it('stop asks for a button confirmation, then runs', async () => {
    const node = await createRunningNode(env, 'dsp2');
    const ask = await typed('node stop dsp2', 'UOP');
    expect(ask.kind).toBe('message');
    if (ask.kind !== 'message') return;
    const confirm = ask.message.buttons?.find((b) => b.style !== 'secondary' && b.id);
    expect(confirm?.id).toBeTruthy();
    const done = await dispatcher.dispatch({ via: 'button', actor: actor('UOP'), place, buttonId: confirm!.id! });
    expect(replyText(done)).toContain('dsp2 was asked to stop');
    await waitForStatus(env, node.nodeId, 'PAUSED');
  });

  it('stop on a node already stopped is refused before any confirmation, saying why and to run node start', async () => {
    const node = await createRunningNode(env, 'dsp5');
    const ask = await typed('node stop dsp5', 'UOP');
    const confirm = ask.kind === 'message' ? ask.message.buttons?.find((b) => b.label === 'Confirm') : undefined;
    await dispatcher.dispatch({ via: 'button', actor: actor('UOP'), place, buttonId: confirm!.id! });
    await waitForStatus(env, node.nodeId, 'PAUSED');

    const again = await typed('node stop dsp5', 'UOP');
    expect(again.kind).toBe('message');
    if (again.kind !== 'message') return;
    expect(again.message.buttons ?? []).toEqual([]);
    expect(replyText(again)).toContain('already stopped (PAUSED)');
    expect(replyText(again)).toContain('/rln node start dsp5');
    expect((await dispatcher.audit.latest({ node: 'dsp5', limit: 1 }))[0]).toMatchObject({ path: 'node stop', outcome: 'refused' });
  });

  it('a confirmation clicked after the node stopped elsewhere is refused by the same state check', async () => {
    const node = await createRunningNode(env, 'dsp6');
    const first = await typed('node stop dsp6', 'UOP');
    const second = await typed('node stop dsp6', 'UOP');
    const idOf = (r: typeof first) => (r.kind === 'message' ? r.message.buttons?.find((b) => b.label === 'Confirm')?.id : undefined);
    await dispatcher.dispatch({ via: 'button', actor: actor('UOP'), place, buttonId: idOf(first)! });
    await waitForStatus(env, node.nodeId, 'PAUSED');
    const late = await dispatcher.dispatch({ via: 'button', actor: actor('UOP'), place, buttonId: idOf(second)! });
    expect(replyText(late)).toContain('already stopped');
    expect(replyText(late)).toContain('node start dsp6');
  });

  it('create is refused to an operator, naming the role needed', async () => {
    const r = await typed('node create nope', 'UOP');
    expect(replyText(r).toLowerCase()).toContain('admin');
    expect((await env.services.hosting.listNodes()).some((n) => n.name === 'nope')).toBe(false);
  });

  it('destroy goes through the typed-name dialog', async () => {
    const node = await createRunningNode(env, 'dsp3');
    const d = await typed('node destroy dsp3');
    expect(d.kind).toBe('dialog');
    if (d.kind !== 'dialog') return;
    const wrong = await dispatcher.dispatch({
      via: 'dialog',
      actor: actor('UADMIN'),
      place,
      dialogId: d.dialog.id,
      values: { confirm_name: 'dsp4', backup: 'false' },
    });
    expect(wrong.kind).toBe('dialog_errors');
    const right = await dispatcher.dispatch({
      via: 'dialog',
      actor: actor('UADMIN'),
      place,
      dialogId: d.dialog.id,
      values: { confirm_name: 'dsp3', backup: 'false' },
    });
    expect(replyText(right)).toContain('dsp3');
    // DESTROING, then DESTROYED and gone from the list.
    await waitFor(async () => !(await env.services.hosting.listNodes()).some((n) => n.nodeId === node.nodeId), {
      timeout: 2_000,
      what: 'node gone',
    });
  });
});
