import { describe, expect, it } from 'vitest';
import type { Reply } from '../../src/engine/types.js';
import type { Message } from '../../src/vocabulary/message.js';
import { harness, slackChannel, slackUser } from '../support/core.js';
import { messageText } from '../support/reply-text.js';

const admin = slackUser('UADMIN', { displayName: 'Ada' });
const ops = slackUser('UOPS');

function m(r: Reply): Message {
  if (r.kind !== 'message') throw new Error(`expected a message, got ${r.kind}`);
  return r.message;
}
const table = (r: Reply) => {
  const b = m(r).blocks.find((x) => x.type === 'table');
  if (!b || b.type !== 'table') throw new Error('no table');
  return b.table;
};

const run = (h: ReturnType<typeof harness>, actor: typeof admin, line: string) =>
  h.dispatcher.dispatch({ via: 'typed', actor, place: slackChannel, text: line });

describe('audit command', () => {
  it('shows the latest changes, newest first, filtered by node, with secrets redacted', async () => {
    const h = harness();
    await run(h, ops, '/rln node start alice');
    await run(h, ops, '/rln node start bob');
    await run(h, slackUser('UREAD'), '/rln node start alice');
    await run(h, admin, '/rln node unlock alice password=topsecret1');

    const all = table(await run(h, ops, '/rln audit'));
    expect(all.rows).toHaveLength(4);
    expect(all.rows[0][2]).toContain('node unlock');
    expect(all.rows[0][3]).toContain('refused');

    const alice = table(await run(h, ops, '/rln audit alice'));
    expect(alice.rows).toHaveLength(3);
    expect(alice.rows.map((r) => r[1])).toEqual(['Ada (slack:UADMIN)', 'uread (slack:UREAD)', 'uops (slack:UOPS)']);
    expect(alice.rows[2][3]).toBe('✅ ok');
    expect(alice.rows[2][4]).toBe('slack:C1');
    expect(JSON.stringify(alice)).not.toContain('topsecret1');

    const limited = table(await run(h, ops, '/rln audit limit=1'));
    expect(limited.rows).toHaveLength(1);
  });

  it('says so when nothing is recorded', async () => {
    const h = harness();
    expect(m(await run(h, ops, '/rln audit nobody')).blocks[0]).toMatchObject({ type: 'text', text: 'Nothing recorded (node=nobody).' });
  });

  it('says there is no such node, or that a user needs its platform, when a filter finds nothing (P27)', async () => {
    const h = harness();
    const nobody = messageText(m(await run(h, ops, '/rln audit nobody')));
    expect(nobody).toContain('There is no node `nobody` (the nodes: alice, bob');
    const bob = messageText(m(await run(h, ops, '/rln audit user=bob')));
    expect(bob).toContain('Nothing recorded (user=bob).');
    expect(bob).toContain('`bob` names no one: give a user with its platform, such as `user=slack:bob`');
    // A node that exists and a full principal get no hint: nothing was done there yet.
    const quiet = m(await run(h, ops, '/rln audit alice user=slack:UOPS'));
    expect(quiet.blocks).toHaveLength(1);
  });
});

describe('help command', () => {
  it('lists every group with its actions, and the top-level actions', async () => {
    const h = harness();
    const t = table(await run(h, ops, '/rln help'));
    expect(t.rows.map((r) => r[0])).toEqual(['node', 'report', 'access', 'audit']);
    // Actions in the order the commands were given (test/support/core.ts): the registry keeps no order of its own.
    expect(t.rows[0][1]).toBe('list, info, start, stop, unlock, destroy, restore');
  });

  it('describes one group with usage, summary, role and examples', async () => {
    const h = harness();
    for (const line of ['/rln node help', '/rln help node']) {
      const r = await run(h, ops, line);
      expect(m(r).header).toBe('/rln node: 7 commands');
      const t = table(r);
      expect(t.rows[0]).toEqual(['/rln node list', 'List the nodes', 'read']);
      expect(t.rows.find((row) => row[0].startsWith('/rln node info'))![0]).toBe('/rln node info <node> [verbose=…]');
      const code = m(r).blocks.find((b) => b.type === 'code');
      expect(code).toMatchObject({ type: 'code' });
      expect((code as any).text).toContain('/rln node destroy alice');
    }
    const sched = table(await run(h, ops, '/rln report help')).rows[0][0];
    expect(sched).toBe('/rln report schedule <node> cron=… [kind=balance|channels] [count=…]');
  });

  it('details one command: every argument, role, confirmation and what is asked privately', async () => {
    const h = harness();
    for (const line of ['/rln help node destroy', '/rln node help destroy']) {
      const r = await run(h, ops, line);
      expect(m(r).header).toBe('/rln node destroy');
      expect(JSON.stringify(m(r))).toContain("typing the node's name in a dialog");
      expect(JSON.stringify(m(r))).toContain('Node password (for the backup)');
      expect(table(r).rows).toEqual([['node', 'yes', 'Node name or id']]);
    }
    const sched = table(await run(h, ops, '/rln help report schedule'));
    expect(sched.rows.find((row) => row[0] === 'kind')).toEqual(['kind', 'no', 'Which report (balance, channels)']);
    expect(m(await run(h, ops, '/rln help node frobnicate')).tone).toBe('danger');
  });

  it('refuses an unknown group with the list of groups', async () => {
    const h = harness();
    const r = await run(h, ops, '/rln help nosuch');
    expect(m(r).tone).toBe('danger');
    expect(JSON.stringify(m(r))).toContain('node, report, access');
  });
});
