/** Small fakes for the core's tests: a hosting service with a node list, and a few commands. */
import { z } from 'zod';
import { Writable } from 'node:stream';
import { defineCommand, type CommandDefinition } from '../../src/engine/types.js';
import { msg } from '../../src/vocabulary/message.js';
import { createRegistry } from '../../src/engine/registry.js';
import type { DispatcherOptions } from '../../src/engine/create-dispatcher.js';
import { testDispatcher } from './dispatcher.js';
import { openDatabase, type Db } from '../../src/store/index.js';
import { createLogger } from '../../src/log.js';
import type { HostedNode } from '../../src/hosting/index.js';
import type { Actor, Place } from '../../src/vocabulary/actors.js';
import { accessCommands } from '../../commands/access.js';
import { metaCommands } from '../../commands/meta.js';

export const NODES: HostedNode[] = [
  { nodeId: 'n-111', name: 'alice', network: 'regtest', status: 'RUNNING' },
  { nodeId: 'n-222', name: 'bob', network: 'regtest', status: 'PAUSED' },
  { nodeId: 'n-333', name: 'carol-prod', network: 'testnet', status: 'FAILED' },
];

export const slackUser = (userId: string, extra: Partial<Actor> = {}): Actor => ({
  platform: 'slack',
  userId,
  displayName: userId.toLowerCase(),
  ...extra,
});
export const slackChannel: Place = { platform: 'slack', channelId: 'C1' };

/** A record of what the fake handlers did. */
export interface Calls {
  stop: string[];
  info: string[];
  unlock: Array<{ node: string; password: string }>;
  destroy: Array<{ node: string; backup: string; backup_password?: string }>;
  restore?: string[];
}

export function fakeCommands(calls: Calls, opts: { fail?: () => unknown } = {}): CommandDefinition<any>[] {
  const nodeArg = () => z.string().min(1).describe('Node name or id');
  return [
    defineCommand({
      path: 'node list',
      summary: 'List the nodes',
      example: '/rln node list',
      args: z.object({}),
      role: 'read',
      confirm: 'none',
      mutates: false,
      handler: async () => ({ header: 'Nodes', blocks: [msg.table({ columns: [{ header: 'Name' }], rows: NODES.map((n) => [n.name]) })] }),
    }),
    defineCommand({
      path: 'node info',
      summary: 'Show a node',
      example: '/rln node info alice',
      args: z.object({ node: nodeArg(), verbose: z.stringbool().optional().describe('More detail') }),
      role: 'read',
      confirm: 'none',
      mutates: false,
      handler: async (ctx) => {
        if (opts.fail) throw opts.fail();
        calls.info.push(ctx.node!.nodeId);
        return {
          header: `Node ${ctx.node!.name}`,
          tone: 'success',
          blocks: [msg.fields([{ label: 'Status', value: String(ctx.node!.status) }])],
        };
      },
    }),
    defineCommand({
      path: 'node start',
      summary: 'Start a node',
      example: '/rln node start alice',
      args: z.object({ node: nodeArg() }),
      role: 'operate',
      confirm: 'none',
      mutates: true,
      handler: async (ctx) => {
        if (opts.fail) throw opts.fail();
        return { header: `Starting ${ctx.node!.name}`, blocks: [] };
      },
    }),
    defineCommand({
      path: 'node stop',
      summary: 'Stop a node',
      example: '/rln node stop alice',
      args: z.object({ node: nodeArg() }),
      role: 'operate',
      confirm: 'button',
      mutates: true,
      handler: async (ctx) => {
        calls.stop.push(ctx.node!.nodeId);
        return { header: `Stopping ${ctx.node!.name}`, tone: 'info', blocks: [msg.text('Stop requested.')] };
      },
    }),
    defineCommand({
      path: 'node unlock',
      summary: 'Unlock a node',
      example: '/rln node unlock alice',
      args: z.object({ node: nodeArg() }),
      role: 'admin',
      confirm: 'none',
      secrets: [{ name: 'password', label: 'Node password', kind: 'secret', required: true }],
      mutates: true,
      handler: async (ctx) => {
        calls.unlock.push({ node: ctx.node!.nodeId, password: ctx.secrets.password });
        return { header: `Unlocked ${ctx.node!.name}`, tone: 'success', blocks: [] };
      },
    }),
    defineCommand({
      path: 'node destroy',
      summary: 'Destroy a node for good',
      example: '/rln node destroy alice',
      args: z.object({ node: nodeArg() }),
      role: 'admin',
      confirm: 'typed-name',
      // As commands/node.ts declares it: the dialog's words, its fields and their check are the command's.
      dialog: {
        title: 'Destroy node',
        submitLabel: 'Destroy',
        intro: 'Backing up first is recommended.',
        check: (values): Record<string, string> =>
          values.backup === 'true' && !values.backup_password
            ? { backup_password: 'Enter the node password to back it up first, or untick the backup.' }
            : {},
      },
      secrets: [
        { name: 'backup', label: 'Back up the node first (recommended: destroying is irreversible)', kind: 'checkbox', initial: 'true' },
        { name: 'backup_password', label: 'Node password (for the backup)', kind: 'secret', required: false, askedIf: 'backup' },
      ],
      mutates: true,
      handler: async (ctx) => {
        calls.destroy.push({ node: ctx.node!.nodeId, backup: ctx.secrets.backup, backup_password: ctx.secrets.backup_password });
        return { header: `Destroyed ${ctx.node!.name}`, tone: 'success', blocks: [] };
      },
    }),
    defineCommand({
      path: 'node restore',
      summary: 'Restore a node from a backup',
      example: '/rln node restore alice',
      args: z.object({ node: nodeArg() }),
      role: 'admin',
      confirm: 'none',
      // As commands/node-lifecycle.ts declares it: the box is the confirmation.
      secrets: [
        { name: 'overwrite', label: "Replace this node's wallet", kind: 'checkbox', initial: 'false', confirms: true },
        { name: 'password', label: 'Password of the backup', kind: 'secret', required: true },
      ],
      dialog: { check: (v): Record<string, string> => (v.overwrite === 'true' ? {} : { overwrite: 'Tick the box.' }) },
      mutates: true,
      handler: async (ctx) => {
        (calls.restore ??= []).push(ctx.node!.nodeId);
        return { header: `Restored ${ctx.node!.name}`, tone: 'success', blocks: [] };
      },
    }),
    defineCommand({
      path: 'report schedule',
      summary: 'Schedule a report',
      example: '/rln report schedule alice cron="0 9 * * *"',
      args: z.object({
        node: nodeArg(),
        cron: z.string().describe('When, as cron'),
        kind: z.enum(['balance', 'channels']).default('balance').describe('Which report'),
        count: z.coerce.number().int().min(1).optional().describe('How many'),
      }),
      positional: ['node'],
      role: 'operate',
      confirm: 'none',
      mutates: true,
      handler: async (ctx) => ({ header: `Scheduled ${ctx.args.kind} at ${ctx.args.cron} x${ctx.args.count ?? 1}`, blocks: [] }),
    }),
    ...accessCommands,
    ...metaCommands,
  ];
}

export function fakeHosting(nodes: HostedNode[] = NODES) {
  let listCalls = 0;
  return {
    get listCalls() {
      return listCalls;
    },
    async listNodes() {
      listCalls++;
      return nodes.map((n) => ({ ...n }));
    },
  };
}

/** A logger writing JSON lines into a string, to assert what the log does (not) hold. */
export function bufferLogger() {
  let text = '';
  const destination = new Writable({
    write(chunk, _enc, cb) {
      text += chunk.toString();
      cb();
    },
  });
  const logger = createLogger({ level: 'debug', destination });
  return {
    logger,
    get text() {
      return text;
    },
  };
}

export interface Harness {
  db: Db;
  calls: Calls;
  clock: { t: number };
  hosting: ReturnType<typeof fakeHosting>;
  log: ReturnType<typeof bufferLogger>;
  dispatcher: ReturnType<typeof testDispatcher>;
  /** A new dispatcher on the same database (a restart). */
  restart(): ReturnType<typeof testDispatcher>;
}

export function harness(opts: { db?: Db; fail?: () => unknown; dispatcher?: Partial<DispatcherOptions> } = {}): Harness {
  const db = opts.db ?? openDatabase(':memory:');
  const calls: Calls = { stop: [], info: [], unlock: [], destroy: [] };
  const clock = { t: Date.parse('2026-11-22T10:00:00Z') };
  const hosting = fakeHosting();
  const log = bufferLogger();
  const registry = createRegistry(fakeCommands(calls, { fail: opts.fail }));
  const make = () =>
    testDispatcher({
      db,
      registry,
      services: { hosting: hosting as any, nodeApi: () => ({}) as any },
      admins: ['slack:UADMIN'],
      operators: ['slack:UOPS', 'slack-group:SOPS'],
      logger: log.logger,
      now: () => clock.t,
      ...opts.dispatcher,
    });
  const h: Harness = { db, calls, clock, hosting, log, dispatcher: make(), restart: make };
  return h;
}
