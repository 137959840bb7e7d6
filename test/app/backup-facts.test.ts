/**
 * The `backup` kind's facts (src/app/watch-profiles.ts): when the service says the node was created
 * and last upgraded, and the last backup this bot made (the real audit trail). A failed upgrade (the
 * service's buildStatus FAILURE) left the node on its image: it is not an upgrade to back up after.
 */
import { describe, expect, it } from 'vitest';
import { backupFacts } from '../../src/app/watch-profiles.js';
import { createAuditLog } from '../../src/access/index.js';
import { openDatabase } from '../../src/store/index.js';
import type { HostedNode } from '../../src/hosting/index.js';

const node = (builds: Array<Record<string, unknown>>): HostedNode => ({
  nodeId: 'n1',
  name: 'alice',
  network: 'regtest',
  status: 'RUNNING',
  createdAt: '2026-10-01T00:00:00.000Z',
  builds,
});

describe('backupFacts', () => {
  it('takes the latest successful upgrade, not a failed one, and the last successful node backup of the audit trail', async () => {
    const audit = createAuditLog(openDatabase(':memory:'), { now: () => Date.parse('2026-11-27T00:00:00Z') });
    const facts = backupFacts(audit);
    const create = { action: 'CREATE', buildStatus: 'SUCCESS', timestamp: '2026-10-01T00:00:00.000Z' };
    const upgrade = { action: 'UPGRADE', buildStatus: 'SUCCESS', timestamp: '2026-11-01T00:00:00.000Z' };
    const failed = { action: 'UPGRADE', buildStatus: 'FAILURE', timestamp: '2026-11-20T00:00:00.000Z' };
    expect(await facts(node([create, upgrade, failed]))).toEqual({
      createdAt: Date.parse('2026-10-01T00:00:00Z'),
      lastUpgradeAt: Date.parse('2026-11-01T00:00:00Z'),
    });
    const actor = { platform: 'slack' as const, userId: 'UOPS' };
    const place = { platform: 'slack' as const, channelId: 'C1' };
    await audit.record({ at: new Date('2026-11-10T00:00:00Z'), actor, place, path: 'node backup', node: 'n1', args: {}, outcome: 'ok' });
    await audit.record({
      at: new Date('2026-11-12T00:00:00Z'),
      actor,
      place,
      path: 'node backup',
      node: 'n1',
      args: {},
      outcome: 'failed',
    });
    expect((await facts(node([create, upgrade, failed]))).lastBackupAt).toBe(Date.parse('2026-11-10T00:00:00Z'));
  });
});
