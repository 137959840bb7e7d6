import { describe, expect, it } from 'vitest';
import { assetCommands } from '../../commands/asset.js';
import { channelCommands } from '../../commands/channel.js';
import { invoiceCommands } from '../../commands/invoice.js';
import { netCommands } from '../../commands/net.js';
import { nodeCommands } from '../../commands/node.js';
import { payCommands } from '../../commands/pay.js';
import { peerCommands } from '../../commands/peer.js';
import { swapCommands } from '../../commands/swap.js';
import { walletCommands } from '../../commands/wallet.js';
import { argSpecsOf, createRegistry, parseCommandLine } from '../../src/engine/index.js';

const mine = [
  ...nodeCommands,
  ...walletCommands,
  ...assetCommands,
  ...invoiceCommands,
  ...payCommands,
  ...channelCommands,
  ...peerCommands,
  ...netCommands,
  ...swapCommands,
];

const TREE: Record<string, string[]> = {
  node: [
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
  ],
  wallet: ['address', 'balance', 'send', 'unspents', 'utxos', 'transactions', 'fee', 'sign'],
  asset: [
    'list',
    'balance',
    'metadata',
    'media',
    'upload',
    'issue-nia',
    'issue-cfa',
    'issue-uda',
    'issue-ifa',
    'inflate',
    'send',
    'transfers',
    'refresh',
    'fail',
  ],
  invoice: ['ln', 'rgb', 'decode', 'status'],
  pay: ['send', 'keysend', 'list'],
  channel: ['list', 'open', 'close', 'id'],
  peer: ['list', 'connect', 'disconnect'],
  net: ['info', 'check-indexer', 'check-proxy', 'onion'],
  swap: ['maker-init', 'maker-execute', 'taker', 'decode', 'list'],
};

describe('node-operation command definitions', () => {
  it('cover exactly the command tree for their groups (docs/ARCHITECTURE.md, "The command tree")', () => {
    const paths = mine.map((d) => d.path).sort();
    const expected = Object.entries(TREE)
      .flatMap(([g, actions]) => actions.map((a) => `${g} ${a}`))
      .sort();
    expect(paths).toEqual(expected);
  });

  it('register in the core registry without a conflict', () => {
    const registry = createRegistry(mine);
    expect(registry.get('node stop')?.path).toBe('node stop');
  });

  it('describe every argument within Discord limits, and every summary too', () => {
    for (const def of mine) {
      expect(def.summary.length, def.path).toBeLessThanOrEqual(100);
      for (const spec of argSpecsOf(def.args)) {
        expect(spec.description, `${def.path} ${spec.name}`).not.toBe('');
        expect(spec.description.length, `${def.path} ${spec.name}`).toBeLessThanOrEqual(100);
        expect(spec.name).toMatch(/^[a-z][a-z0-9_]{0,31}$/);
      }
    }
  });

  it('have examples that parse as their own command', () => {
    const registry = createRegistry(mine);
    for (const def of mine) {
      expect(def.example.startsWith(`/rln ${def.path}`), def.path).toBe(true);
      expect(parseCommandLine(def.example, registry).path, def.example).toBe(def.path);
    }
  });

  it('take the node name or id as the first argument of every node operation', () => {
    for (const def of mine) {
      if (def.path === 'node list' || def.path === 'node create') continue;
      expect(Object.keys(def.args.shape)[0], def.path).toBe('node');
    }
    const registry = createRegistry(mine);
    expect(parseCommandLine('/rln node stop alice', registry).args).toEqual({ node: 'alice' });
    expect(parseCommandLine('/rln asset issue-nia alice USDT "Tether USD" 1000,2000 precision=2', registry).args).toEqual({
      node: 'alice',
      ticker: 'USDT',
      name: 'Tether USD',
      amounts: '1000,2000',
      precision: '2',
    });
  });

  it('ask the roles, confirmations and secrets of issue #3', () => {
    const by = (p: string) => mine.find((d) => d.path === p)!;
    const admin = [
      'node create',
      'node destroy',
      'node init',
      'node unlock',
      'node lock',
      'node password',
      'node restore',
      'node shutdown',
      'pay send',
      'pay keysend',
      'asset send',
      'asset inflate',
      'channel open',
      'channel close',
      'swap maker-execute',
      'wallet send',
    ];
    for (const p of admin) expect(by(p).role, p).toBe('admin');
    for (const p of [
      'node start',
      'node stop',
      'node upgrade',
      'node settings',
      'node logs',
      'peer connect',
      'peer disconnect',
      'net onion',
      'swap maker-init',
      'swap taker',
      'asset issue-ifa',
    ])
      expect(by(p).role, p).toBe('operate');
    for (const d of mine)
      if (!d.mutates) expect(d.role === 'read' || d.path === 'wallet address' || d.path === 'wallet sign', d.path).toBe(true);
    const buttons = mine
      .filter((d) => d.confirm === 'button')
      .map((d) => d.path)
      .sort();
    expect(buttons).toEqual([
      'asset fail',
      'asset inflate',
      'asset issue-ifa',
      'asset send',
      'channel close',
      'channel open',
      'node lock',
      'node shutdown',
      'node stop',
      'node upgrade',
      'pay keysend',
      'pay send',
      'swap maker-execute',
      'wallet send',
      'wallet utxos',
    ]);
    expect(mine.filter((d) => d.confirm === 'typed-name').map((d) => d.path)).toEqual(['node destroy']);
    const secretNames = (p: string) => (by(p).secrets ?? []).filter((f) => f.kind === 'secret').map((f) => f.name);
    expect(secretNames('node init')).toEqual(['password', 'password_repeat', 'mnemonic']);
    expect(secretNames('node unlock')).toContain('password');
    expect(secretNames('node password')).toEqual(['old_password', 'new_password', 'new_password_repeat']);
    expect(secretNames('node backup')).toEqual(['password']);
    expect(secretNames('node restore')).toEqual(['password']);
    expect(secretNames('node destroy')).toEqual(['backup_password']);
    expect(Object.keys(by('node restore').args.shape)).toContain('backup_path');
    // A secret field is never an argument; a box may be one (its answer joins the arguments, so an approval keeps it), and so
    // may a plain text field the dialog prefills from it (`node unlock`'s indexer_url on 6887cbf).
    for (const d of mine)
      for (const f of d.secrets ?? []) if (f.kind === 'secret') expect(Object.keys(d.args.shape), d.path).not.toContain(f.name);
    expect(Object.keys(by('node destroy').args.shape)).toContain('backup');
  });
});
