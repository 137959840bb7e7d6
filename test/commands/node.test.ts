import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logPolling, nodeCommands } from '../../commands/node.js';
import { ServiceError } from '../../src/hosting/index.js';
import { EMULATOR_LEAKED_SECRETS } from '../../src/emulator/index.js';
import { NodeApiError } from '../../src/node-api/index.js';
import { waitFor } from '../support/wait-for.js';
import {
  INDEXER_URL,
  PASSWORD,
  createReadyNode,
  createRunningNode,
  findCommand,
  messageOf,
  runCommand,
  makeContext,
  startEnv,
  tableOf,
  textOf,
  waitForStatus,
  type TestEnv,
} from '../support/commands.js';

const cmd = (path: string) => findCommand(nodeCommands, path);

describe('node commands', () => {
  let env: TestEnv;
  beforeAll(async () => {
    env = await startEnv();
  });
  afterAll(async () => {
    await env?.close();
  });

  it('define every action of the node group, with a described argument for every field', () => {
    const actions = nodeCommands.map((d) => d.path.split(' ')[1]);
    expect(actions).toEqual([
      'list',
      'info',
      'create',
      'start',
      'stop',
      'upgrade',
      'destroy',
      'settings',
      'logs',
      'image',
      'init',
      'unlock',
      'lock',
      'password',
      'backup',
      'restore',
      'sync',
      'shutdown',
    ]);
    for (const d of nodeCommands) {
      expect(d.example.startsWith(`/rln ${d.path}`)).toBe(true);
      for (const [name, field] of Object.entries(d.args.shape)) {
        const description = (field as { description?: string }).description;
        expect(description, `${d.path} ${name}`).toBeTruthy();
        expect(description!.length).toBeLessThanOrEqual(100);
      }
    }
    expect(cmd('node destroy').confirm).toBe('typed-name');
    expect(cmd('node stop').confirm).toBe('button');
    expect(cmd('node init').secrets?.map((s) => s.name)).toEqual(['password', 'password_repeat', 'mnemonic']);
  });

  it('create makes a STARTING node and says what to do next', async () => {
    const r = await runCommand(env, cmd('node create'), { name: 'cr1', network: 'testnet' });
    const text = textOf(r);
    expect(text).toContain('Node created · cr1');
    expect(text).toContain('testnet');
    expect(text).toContain('node init cr1');
    // No PUBLIC_URL in this environment: say what that means and how to fix it.
    expect(text).toContain('Webhook URL: not set');
    expect(text).toContain('does not tell the bot when cr1 changes status');
    expect(text).toContain('node settings cr1 webhook=https://');
    const nodes = await env.services.hosting.listNodes();
    expect(nodes.find((n) => n.name === 'cr1')?.network).toBe('testnet');
  });

  it('create with PUBLIC_URL sets the bot’s webhook URL with the node’s id, as node info and node settings give it (P30)', async () => {
    const withPublic = { ...env, services: { ...env.services, publicUrl: 'http://127.0.0.1:3101/' } };
    const r = await runCommand(withPublic, cmd('node create'), { name: 'cr2' });
    const node = (await env.services.hosting.listNodes()).find((n) => n.name === 'cr2')!;
    const url = `http://127.0.0.1:3101/webhooks/service/${node.nodeId}`;
    expect(textOf(r)).toContain(`Webhook URL: ${url}`);
    expect((await env.services.hosting.getNode(node.nodeId)).settings?.webhookUrl).toBe(url);
  });

  it('create warns when the new name differs from another node’s only in case (P31)', async () => {
    await runCommand(env, cmd('node create'), { name: 'twin' });
    const r = await runCommand(env, cmd('node create'), { name: 'Twin' });
    expect(textOf(r)).toContain('twin exists too: from now on give each of the two by its exact name');
  });

  it('create refuses a webhook that is not https', () => {
    expect(cmd('node create').args.safeParse({ name: 'x', webhook: 'http://example.com/hook' }).success).toBe(false);
  });

  it('list shows every node with a status badge and counts by status', async () => {
    await createRunningNode(env, 'ls1');
    const r = await runCommand(env, cmd('node list'), {});
    const { headers, rows } = tableOf(r);
    expect(headers).toEqual(['Name', 'Status', 'Wallet', 'Network', 'Initialized', 'Last build']);
    const row = rows.find((x) => x[0] === 'ls1');
    expect(row?.[1]).toBe('🟢 RUNNING');
    expect(row?.[3]).toBe('regtest');
    const total = (await env.services.hosting.listNodes()).length;
    expect(messageOf(r).message.header).toBe(`Nodes (${total})`);
    expect(textOf(r)).toMatch(/\d+ 🟢 RUNNING/);
  });

  it('list shows whether each wallet is uninitialised, locked or unlocked, and unknown when the node does not answer in time', async () => {
    await createRunningNode(env, 'lk-new');
    await createReadyNode(env, 'lk-open');
    const locked = await createReadyNode(env, 'lk-shut');
    await env.api(locked).lock();
    const r = await runCommand(env, cmd('node list'), { limit: '100' });
    const { headers, rows } = tableOf(r);
    const wallet = (name: string) => rows.find((x) => x[0] === name)?.[headers.indexOf('Wallet')];
    expect(wallet('lk-new')).toBe('⚪ uninitialised');
    expect(wallet('lk-open')).toBe('🔓 unlocked');
    expect(wallet('lk-shut')).toBe('🔒 locked');

    const { lockStates } = await import('../../commands/support/lock-state.js');
    const nodes = (await env.services.hosting.listNodes()).filter((n) => n.name === 'lk-open');
    env.emulator.faults.latencyMs = 400;
    try {
      const ctx = makeContext(env, cmd('node list'), {});
      expect(await lockStates(ctx, nodes, { timeoutMs: 50 })).toEqual(['unknown']);
    } finally {
      env.emulator.faults.latencyMs = 0;
    }
  });

  it('list pages long lists', async () => {
    const r = await runCommand(env, cmd('node list'), { limit: '1' });
    expect(tableOf(r).rows).toHaveLength(1);
    expect(textOf(r)).toMatch(/showing 1-1 of \d+/);
  });

  it('info shows the node, its invoke URL and, once unlocked, its node info', async () => {
    const node = await createReadyNode(env, 'info1');
    const r = await runCommand(env, cmd('node info'), { node: 'info1' });
    const text = textOf(r);
    expect(text).toContain('Node · info1');
    expect(text).toContain(node.invoke_url!);
    expect(text).toContain('🟢 RUNNING');
    const pubkey = (await env.api(node).nodeinfo()).pubkey;
    expect(text).toContain(pubkey);
    expect(messageOf(r).message.tone).toBe('success');
  });

  it('info gives the peer address other nodes connect to (pubkey@peerDNS:peerPort)', async () => {
    const node = await createReadyNode(env, 'info3');
    const r = await runCommand(env, cmd('node info'), { node: 'info3' });
    const pubkey = (await env.api(node).nodeinfo()).pubkey;
    expect(textOf(r)).toContain(`Peer address: ${pubkey}@${String(node.peerDNS)}:${String(node.peerPort)}`);
  });

  it('info skips the node details gracefully when the node is not initialized', async () => {
    await createRunningNode(env, 'info2');
    const r = await runCommand(env, cmd('node info'), { node: 'info2' });
    const text = textOf(r);
    expect(text).toContain('not initialized');
    expect(text).toContain('node init info2');
    expect(text).not.toContain('Pubkey');
  });

  it('stop, start and upgrade go through the service and show current → latest image', async () => {
    const node = await createRunningNode(env, 'life1');
    const stopped = await runCommand(env, cmd('node stop'), { node: 'life1' });
    expect(textOf(stopped)).toContain('life1 was asked to stop');
    expect(messageOf(stopped).message.buttons?.[0]).toMatchObject({ command: 'node start', args: { node: 'life1' } });
    await waitForStatus(env, node.nodeId, 'PAUSED');

    const started = await runCommand(env, cmd('node start'), { node: 'life1' });
    expect(textOf(started)).toContain('life1 is starting');
    await waitForStatus(env, node.nodeId, 'RUNNING');

    const before = (await env.services.hosting.getNode(node.nodeId)).imageVersion as string;
    env.emulator.setLatestImage('v9.9.9');
    const upgraded = await runCommand(env, cmd('node upgrade'), { node: 'life1' });
    expect(textOf(upgraded)).toContain(`${before} → v9.9.9`);
    await waitForStatus(env, node.nodeId, 'RUNNING');
    expect((await env.services.hosting.getNode(node.nodeId)).imageVersion).toBe('v9.9.9');
  });

  it('image compares the node image with the latest one', async () => {
    await createRunningNode(env, 'img1');
    env.emulator.setLatestImage('v10.0.0');
    const r = await runCommand(env, cmd('node image'), { node: 'img1' });
    const text = textOf(r);
    expect(text).toContain('Latest: v10.0.0');
    expect(text).toContain('node upgrade img1');
    const latestOnly = await runCommand(env, cmd('node image'), {});
    expect(textOf(latestOnly)).toContain('Latest: v10.0.0');
    const row = tableOf(latestOnly).rows.find((r) => r[0] === 'img1')!;
    expect(row[1]).toMatch(/^v/);
    expect(row[2]).toBe('⬆️ upgrade to v10.0.0');
  });

  it('upgrade of a node already on the latest image is refused before any confirmation, naming the version', async () => {
    env.emulator.setLatestImage('v11.0.0');
    const node = await createRunningNode(env, 'cur1');
    expect((await env.services.hosting.getNode(node.nodeId)).imageVersion).toBe('v11.0.0');
    const def = cmd('node upgrade');
    expect(await def.check!(makeContext(env, def, { node: 'cur1' }, { node }))).toMatchObject({
      reason: 'cur1 already runs the latest image, v11.0.0: there is nothing to upgrade.',
    });
    env.emulator.setLatestImage('v11.1.0');
    expect(await def.check!(makeContext(env, def, { node: 'cur1' }, { node }))).toBeUndefined();
    const fields = await def.preview!(makeContext(env, def, { node: 'cur1' }, { node: await env.services.hosting.getNode(node.nodeId) }));
    expect(fields).toContainEqual(
      expect.objectContaining({ label: 'Image', value: expect.stringMatching(/^v11\.0\.0 → v11\.1\.0 \(node API /) }),
    );
  });

  it('settings sets the webhook URL', async () => {
    const node = await createRunningNode(env, 'set1');
    const r = await runCommand(env, cmd('node settings'), { node: 'set1', webhook: 'https://bot.example.com/webhooks/service' });
    expect(textOf(r)).toContain('https://bot.example.com/webhooks/service');
    expect((await env.services.hosting.getNode(node.nodeId)).settings?.webhookUrl).toBe('https://bot.example.com/webhooks/service');
  });

  it('settings with no webhook= shows the URL and changes nothing, even where PUBLIC_URL is set (issue 26, P6)', async () => {
    const node = await createRunningNode(env, 'set2');
    await runCommand(env, cmd('node settings'), { node: 'set2', webhook: 'https://bot.example.com/webhooks/service' });
    const withPublic = { ...env, services: { ...env.services, publicUrl: 'http://127.0.0.1:3101' } };
    const r = await runCommand(withPublic, cmd('node settings'), { node: 'set2' });
    expect(textOf(r)).toContain('Nothing was changed');
    expect(textOf(r)).toContain('https://bot.example.com/webhooks/service');
    expect((await env.services.hosting.getNode(node.nodeId)).settings?.webhookUrl).toBe('https://bot.example.com/webhooks/service');
    // webhook=bot sets the bot's own URL, with the node's id; an http:// one typed is refused.
    await runCommand(withPublic, cmd('node settings'), { node: 'set2', webhook: 'bot' });
    expect((await env.services.hosting.getNode(node.nodeId)).settings?.webhookUrl).toBe(
      `http://127.0.0.1:3101/webhooks/service/${node.nodeId}`,
    );
    expect(() => cmd('node settings').args.parse({ node: 'set2', webhook: 'http://bot.example.com/x' })).toThrow(/HTTPS/);
  });

  it("logs exports, waits, shows the last lines of the emulator's log in a code block and attaches every file, secrets masked", async () => {
    await createRunningNode(env, 'log1');
    const r = await runCommand(env, cmd('node logs'), { node: 'log1', lines: '20' });
    const { message } = messageOf(r);
    const text = textOf(r);
    expect(text).toContain('Last 20 of');
    const shown = message.blocks.flatMap((b) => (b.type === 'code' ? b.text.split('\n') : []));
    expect(shown).toHaveLength(20);
    // The tail of the export as the emulator serves it: its last line gives the node's status.
    expect(shown.at(-1)).toMatch(/status RUNNING/);
    expect(message.files?.map((f) => f.name).sort()).toEqual(['log1-rln.log', 'log1-service.log']);
    const full = Buffer.from(message.files!.find((f) => f.name === 'log1-rln.log')!.base64, 'base64').toString('utf8');
    expect(full.split('\n').length).toBeGreaterThan(100);
    const everything = JSON.stringify(message);
    const files = message.files!.map((f) => Buffer.from(f.base64, 'base64').toString('utf8')).join('\n');
    for (const secret of Object.values(EMULATOR_LEAKED_SECRETS)) {
      expect(everything).not.toContain(secret);
      expect(files).not.toContain(secret);
    }
    // Not one word of the mnemonic, in whatever order it is printed, next to another.
    const words = EMULATOR_LEAKED_SECRETS.mnemonic.split(' ');
    for (let i = 1; i < words.length; i++)
      expect(files).not.toMatch(new RegExp(`${words[i - 1]}\\W+${words[i]}|${words[i]}\\W+${words[i - 1]}`));
    expect(full).toContain('"password": "[redacted]"');
    expect(full).toContain('--password [redacted]');
    expect(full).toContain('http://rpcuser:[redacted]@bitcoind');
  });

  it('logs shows 50 lines unless told otherwise', async () => {
    const r = await runCommand(env, cmd('node logs'), { node: 'log1' });
    const shown = messageOf(r).message.blocks.flatMap((b) => (b.type === 'code' ? b.text.split('\n') : []));
    expect(shown).toHaveLength(50);
  });

  it('init shows the mnemonic once, only in a private reply', async () => {
    await createRunningNode(env, 'init1');
    const r = await runCommand(env, cmd('node init'), { node: 'init1' }, { secrets: { password: PASSWORD, password_repeat: PASSWORD } });
    const { message, private: isPrivate } = messageOf(r);
    expect(isPrivate).toBe(true);
    const code = message.blocks.find((b) => b.type === 'code');
    expect(code && code.type === 'code' ? code.text.split(' ').length : 0).toBeGreaterThanOrEqual(12);
    expect(textOf(r)).toMatch(/write these words down/i);
  });

  it('init and password refuse two different new passwords, or one shorter than 8 characters, as dialog field errors', () => {
    const initDialog = cmd('node init').dialog!;
    const init = (values: Record<string, string>) => initDialog.check!(values);
    // Either error is on both fields, so that both are asked again (P21).
    expect(init({ password: PASSWORD, password_repeat: `${PASSWORD}x` })).toEqual({
      password: 'The two new passwords differ: type the new password again.',
      password_repeat: 'The two new passwords differ: type the same password here.',
    });
    expect(init({ password: 'short', password_repeat: 'short' })).toEqual({
      password: 'The password must have at least 8 characters; this one has 5.',
      password_repeat: 'Type the new password again, here too.',
    });
    expect(init({ password: PASSWORD, password_repeat: PASSWORD })).toEqual({});
    const pwDialog = cmd('node password').dialog!;
    const pw = (values: Record<string, string>) => pwDialog.check!(values);
    expect(pw({ old_password: PASSWORD, new_password: 'new password 1', new_password_repeat: 'new password 2' })).toEqual({
      new_password: 'The two new passwords differ: type the new password again.',
      new_password_repeat: 'The two new passwords differ: type the same password here.',
    });
    expect(JSON.stringify(pw({ old_password: PASSWORD, new_password: 'seven77', new_password_repeat: 'seven77' }))).not.toContain(
      'seven77',
    );
  });

  it('unlock and lock change the node state; a locked node answers with NodeApiError LockedNode', async () => {
    const node = await createRunningNode(env, 'lock1');
    await env.api(node).init({ password: PASSWORD });
    const unlocked = await runCommand(
      env,
      cmd('node unlock'),
      { node: 'lock1', indexer_url: INDEXER_URL },
      { secrets: { password: PASSWORD } },
    );
    expect(textOf(unlocked)).toContain('lock1 is unlocked');
    expect((await env.api(node).nodeinfo()).pubkey).toBeTruthy();

    const locked = await runCommand(env, cmd('node lock'), { node: 'lock1' });
    expect(textOf(locked)).toContain('node unlock lock1');
    const err = await runCommand(env, findCommand((await import('../../commands/wallet.js')).walletCommands, 'wallet balance'), {
      node: 'lock1',
    }).catch((e) => e);
    expect(err).toBeInstanceOf(NodeApiError);
    expect((err as NodeApiError).rlnName).toBe('LockedNode');
    expect((err as NodeApiError).hint).toContain('node unlock');
  });

  it('unlock with a wrong password surfaces the node error, without the password', async () => {
    const node = await createRunningNode(env, 'lock2');
    await env.api(node).init({ password: PASSWORD });
    const err = await runCommand(
      env,
      cmd('node unlock'),
      { node: 'lock2', indexer_url: INDEXER_URL },
      { secrets: { password: 'wrong-password-1' } },
    ).catch((e) => e);
    expect((err as NodeApiError).rlnName).toBe('WrongPassword');
    expect(String((err as Error).message)).not.toContain('wrong-password-1');
  });

  it('password, backup and restore work on a locked node', async () => {
    const node = await createRunningNode(env, 'bk1');
    await env.api(node).init({ password: PASSWORD });
    const changed = await runCommand(
      env,
      cmd('node password'),
      { node: 'bk1' },
      { secrets: { old_password: PASSWORD, new_password: 'another password', new_password_repeat: 'another password' } },
    );
    expect(textOf(changed)).toContain('password of bk1 was changed');
    const backup = await runCommand(
      env,
      cmd('node backup'),
      { node: 'bk1', backup_path: '/backups/bk1.backup' },
      { secrets: { password: 'another password' } },
    );
    expect(textOf(backup)).toContain('/backups/bk1.backup');
    const restored = await runCommand(
      env,
      cmd('node restore'),
      { node: 'bk1', backup_path: '/backups/bk1.backup' },
      { secrets: { overwrite: 'true', password: 'another password' } },
    );
    expect(textOf(restored)).toContain('restored from /backups/bk1.backup');
  });

  it('sync and shutdown run on an unlocked node; after shutdown it is locked', async () => {
    const node = await createReadyNode(env, 'sd1');
    expect(textOf(await runCommand(env, cmd('node sync'), { node: 'sd1' }))).toContain('sd1 is synced');
    expect(textOf(await runCommand(env, cmd('node shutdown'), { node: 'sd1' }))).toContain('node unlock sd1');
    const err = await env
      .api(node)
      .nodeinfo()
      .catch((e) => e);
    expect((err as NodeApiError).rlnName).toBe('LockedNode');
  });

  it('destroy without a backup removes the node', async () => {
    const node = await createRunningNode(env, 'd1');
    const r = await runCommand(env, cmd('node destroy'), { node: 'd1' });
    expect(textOf(r)).toContain('d1');
    expect(messageOf(r).message.tone).toBe('danger');
    // DESTROING, then DESTROYED and gone from the list, as the service's description shows.
    await waitFor(async () => !(await env.services.hosting.listNodes()).some((n) => n.nodeId === node.nodeId), {
      timeout: 2_000,
      what: 'd1 gone',
    });
  });

  it('destroy with a backup backs up first (locking an unlocked node), then destroys', async () => {
    const node = await createReadyNode(env, 'd2');
    const r = await runCommand(
      env,
      cmd('node destroy'),
      { node: 'd2', backup_path: '/backups/d2.backup', backup: 'true' },
      { secrets: { backup_password: PASSWORD } },
    );
    expect(textOf(r)).toContain('/backups/d2.backup');
    await waitFor(async () => !(await env.services.hosting.listNodes()).some((n) => n.nodeId === node.nodeId), {
      timeout: 2_000,
      what: 'd2 gone',
    });
    // The backup exists: another node can be restored from it.
    const other = await createRunningNode(env, 'd2b');
    await env.api(other).restore({ backup_path: '/backups/d2.backup', password: PASSWORD });
  });

  it('destroy refuses to destroy when the asked backup fails', async () => {
    const node = await createRunningNode(env, 'd3');
    await env.api(node).init({ password: PASSWORD });
    const err = await runCommand(
      env,
      cmd('node destroy'),
      { node: 'd3', backup: 'true' },
      { secrets: { backup_password: 'not the password' } },
    ).catch((e) => e);
    expect((err as Error).message).toContain('Not destroyed');
    expect((err as Error).message).not.toContain('not the password');
    expect((await env.services.hosting.listNodes()).some((n) => n.nodeId === node.nodeId)).toBe(true);
  });

  it('destroy refuses a backup without a password', async () => {
    const node = await createRunningNode(env, 'd4');
    const err = await runCommand(env, cmd('node destroy'), { node: 'd4', backup: 'true' }, { secrets: {} }).catch((e) => e);
    expect((err as Error).message).toContain('no node password');
    expect((await env.services.hosting.listNodes()).some((n) => n.nodeId === node.nodeId)).toBe(true);
  });
});

describe('node logs when the export is slow', () => {
  let env: TestEnv;
  beforeAll(async () => {
    env = await startEnv({ lifecycleDelayMs: 60_000 });
  });
  afterAll(async () => {
    await env?.close();
  });

  it('says the export is still preparing and how to ask again with its task id', async () => {
    await env.services.hosting.createNode({ name: 'slowlogs', network: 'regtest' });
    logPolling.attempts = 2;
    const r = await runCommand(env, cmd('node logs'), { node: 'slowlogs' });
    const text = textOf(r);
    expect(text).toContain('still preparing');
    const task = /node logs slowlogs task=(\S+)/.exec(text)?.[1];
    expect(task).toBeTruthy();
    const again = await runCommand(env, cmd('node logs'), { node: 'slowlogs', task: task! });
    expect(textOf(again)).toContain(`task=${task}`);
  });

  it('a service refusal surfaces as the ServiceError (the dispatcher renders it)', async () => {
    const { node } = await env.services.hosting.createNode({ name: 'busy', network: 'regtest' });
    expect(node.status).toBe('STARTING');
    const err = await runCommand(env, cmd('node start'), { node: 'busy' }).catch((e) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect((err as ServiceError).status).toBe(409);
  });
});
