/**
 * A read that lists the account's nodes (node list, node image, status and so App Home, report …
 * all, the digest) shows a reader whose grant is scoped to some nodes only those nodes, and says
 * so; naming another node in a report is refused. Those who read every node (READ_USERS, an
 * unscoped grant) see every node and no note. The whole bot against the demo's emulator (alice,
 * bob, carol), through the dispatcher.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness.js';
import { slackChannel, slackUser } from '../support/core.js';
import { replyText } from '../support/reply-text.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({
    env: { ADMIN_USERS: 'slack:UADMIN', READ_USERS: 'slack:UREAD' },
    emulator: { seed: 'demo', demoPassword: 'demo-password-1' },
  });
  const grant = await run('UADMIN', 'access grant slack:USCOPED read nodes=alice,carol');
  expect(grant).toContain('now has the read role');
  expect(await run('UADMIN', 'access grant slack:UWIDE read')).toContain('now has the read role');
  expect(await run('UADMIN', 'access grant slack:UOPSCOPED operate nodes=alice')).toContain('now has the operate role');
}, 90_000);
afterAll(async () => {
  await h?.close();
});

async function run(who: string, line: string): Promise<string> {
  return replyText(await h.app.dispatcher.dispatch({ via: 'typed', actor: slackUser(who), place: slackChannel, text: line }));
}

const NOTE = 'showing the 2 nodes you may read';
const names = (text: string) => ['alice', 'bob', 'carol'].filter((n) => new RegExp(`\\b${n}\\b`).test(text));

describe('lists under a grant scoped to some nodes', () => {
  it('node list shows only the nodes in scope, and says so', async () => {
    const scoped = await run('USCOPED', 'node list');
    expect(names(scoped)).toEqual(['alice', 'carol']);
    expect(scoped).toContain(NOTE);
    expect(scoped).toContain('2 nodes');
  });

  it('status (the dashboard, and App Home) shows only the nodes in scope', async () => {
    const scoped = await run('USCOPED', 'status');
    expect(scoped).toContain('Status · 2 nodes');
    expect(names(scoped)).toEqual(['alice', 'carol']);
    expect(scoped).toContain(NOTE);
  });

  it('node image without a node lists only the nodes in scope', async () => {
    const scoped = await run('USCOPED', 'node image');
    expect(names(scoped)).toEqual(['alice', 'carol']);
    expect(scoped).toContain(NOTE);
  });

  it('report balance all reports the nodes in scope; a node out of scope is refused', async () => {
    const scoped = await run('USCOPED', 'report balance all days=0');
    expect(scoped).toContain('Balance report');
    expect(names(scoped)).toEqual(['alice', 'carol']);
    expect(scoped).toContain(NOTE);
    const refused = await run('USCOPED', 'report balance bob days=0');
    expect(refused).toContain('does not reach bob');
    expect(refused).not.toContain('Balance report');
    expect(await run('USCOPED', 'report balance alice days=0')).not.toContain(NOTE);
  });

  it('report digest all covers the nodes in scope and says so; bob is refused', async () => {
    // A status change of bob and one of alice, stored as the service's signed webhooks: the
    // digest of someone who reads every node counts both, so a scoped one counting two would leak bob's.
    for (const name of ['bob', 'alice']) {
      const node = h.emulator.nodes().find((n) => n.name === name)!;
      const body = JSON.stringify({
        eventType: 'NODE_STATUS_UPDATED',
        eventTimestamp: new Date().toISOString(),
        nodeId: node.nodeId,
        details: { nodeId: node.nodeId, status: 'PAUSED' },
      });
      const res = await fetch(`${h.url}/webhooks/service/${node.nodeId}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-service-signature': h.emulator.sign(body) },
        body,
      });
      expect(res.status).toBe(202);
    }
    const statusAlerts = (text: string) => text.match(/^status: (\d+)/m)?.[1];
    expect(statusAlerts(await run('UADMIN', 'report digest all'))).toBe('2');
    const scoped = await run('USCOPED', 'report digest all');
    expect(scoped).toContain(NOTE);
    expect(statusAlerts(scoped)).toBe('1');
    expect(await run('USCOPED', 'report digest bob')).toContain('does not reach bob');
  });

  it('READ_USERS, an unscoped grant and admins see every node, with no note', async () => {
    for (const who of ['UREAD', 'UWIDE', 'UADMIN']) {
      const list = await run(who, 'node list');
      expect(names(list)).toEqual(['alice', 'bob', 'carol']);
      expect(list).not.toContain('you may read');
      const status = await run(who, 'status');
      expect(status).toContain('Status · 3 nodes');
      expect(status).not.toContain('you may read');
    }
  });

  it('a report schedule never reaches past the asker: a node-scoped operator is refused, and so is all for a scoped reader', async () => {
    // A schedule runs later with no asker, so for all it would post every node to the channel.
    const all = await run('UOPSCOPED', 'report schedule kind=balance node=all cron="0 9 * * *"');
    expect(all).toContain('limited to nodes=alice');
    expect(all).not.toContain('Scheduled');
    // The reports service checks the reach itself, whoever calls it.
    const place = { platform: 'slack' as const, channelId: slackChannel.channelId, cron: '0 9 * * *', createdBy: 'slack:UOPSCOPED' };
    const aliceOnly = (n: { name: string }) => n.name === 'alice';
    await expect(h.app.services.reports.schedule({ ...place, kind: 'balance', node: 'all', readable: aliceOnly })).rejects.toThrow(
      /covers only some nodes/,
    );
    await expect(h.app.services.reports.schedule({ ...place, kind: 'digest', node: 'bob', readable: aliceOnly })).rejects.toThrow(
      /does not reach bob/,
    );
    const kept = await h.app.services.reports.schedule({ ...place, kind: 'balance', node: 'alice', readable: aliceOnly });
    expect(kept.node).toBe('alice');
    expect(names(await run('UADMIN', 'report schedules'))).toEqual(['alice']);
    expect(await run('UADMIN', 'report schedule kind=channels node=all cron="0 10 * * *"')).toContain('Scheduled: channels report for all');
  });
});
