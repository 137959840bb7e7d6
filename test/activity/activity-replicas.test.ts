/**
 * Node activity polling on several replicas sharing one PostgreSQL database: the nodes are
 * split between them (a lease per node for most of an interval), so each node is polled once
 * per interval in all, never once per replica; and when one replica stops, the other polls
 * every node.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createActivityPoller } from '../../src/activity/index.js';
import { startEmulator } from '../../src/emulator/index.js';
import { createHostingClient, type HostedNode } from '../../src/hosting/index.js';
import { silentLogger } from '../../src/log.js';
import { createNodeApiClient } from '../../src/node-api/index.js';
import { createActivityStateRepo, createLeases, openPostgres } from '../../src/store/index.js';
import { newPostgresUrl } from '../support/databases.js';
import { tcpRelay } from '../support/tcp-relay.js';

const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

describe('activity polling across replicas', () => {
  it('polls each watched node once per interval in all, never once per replica, and all of them when one stops', async () => {
    const emulator = await startEmulator({ seed: 'demo', demoPassword: 'demo-password', lifecycleDelayMs: 20 });
    cleanup.push(() => emulator.close());
    const hosting = createHostingClient({ baseUrl: emulator.url, token: emulator.token });
    const url = await newPostgresUrl('activity');
    const INTERVAL = 30_000;
    let clock = Date.parse('2026-11-22T10:00:00Z');
    /** Which replica polled which node, per pass. */
    const polled: Array<{ replica: string; node: string }> = [];
    const replica = async (name: string) => {
      const db = await openPostgres(url);
      cleanup.push(() => db.close());
      const leases = createLeases(db);
      return createActivityPoller({
        listNodes: () => hosting.listNodes(),
        isWatched: () => true,
        api: (n: HostedNode) => (
          polled.push({ replica: name, node: n.name }),
          createNodeApiClient({ baseUrl: n.invoke_url!, credentials: { kind: 'token', token: emulator.nodeApiToken }, retries: 0 })
        ),
        states: createActivityStateRepo(db),
        publish: () => undefined,
        claim: (nodeId, until, now) => leases.claim(`activity:${nodeId}`, name, until, now),
        now: () => clock,
        logger: silentLogger,
        intervalMs: INTERVAL,
      });
    };
    const [a, b] = [await replica('a'), await replica('b')];
    const running = (await hosting.listNodes())
      .filter((n) => n.status === 'RUNNING' && n.invoke_url)
      .map((n) => n.name)
      .sort();
    expect(running.length).toBeGreaterThan(1);

    // Three intervals; in each both replicas run their pass at the same moment.
    for (let pass = 0; pass < 3; pass++) {
      polled.length = 0;
      await Promise.all([a.pollOnce(), b.pollOnce()]);
      expect(polled.map((p) => p.node).sort()).toEqual(running); // every node once, none twice
      clock += INTERVAL;
    }
    // One replica stops: the other now polls every node, once.
    polled.length = 0;
    await b.pollOnce();
    expect(polled.map((p) => p.node).sort()).toEqual(running);
    expect(new Set(polled.map((p) => p.replica))).toEqual(new Set(['b']));
  });

  it('loses a pass, not the process, while the database does not answer, and polls again once it does', async () => {
    const emulator = await startEmulator({ seed: 'demo', demoPassword: 'demo-password', lifecycleDelayMs: 20 });
    cleanup.push(() => emulator.close());
    const hosting = createHostingClient({ baseUrl: emulator.url, token: emulator.token });
    const url = new URL(await newPostgresUrl('activity-lost'));
    const relay = await tcpRelay(Number(url.port));
    cleanup.push(() => relay.close());
    url.port = String(relay.port);
    const db = await openPostgres(url.toString(), { onError: () => undefined });
    cleanup.push(() => db.close());
    const warned: string[] = [];
    const logger = { ...silentLogger, warn: (_o: unknown, msg?: string) => void warned.push(String(msg)) } as typeof silentLogger;
    let polls = 0;
    const poller = createActivityPoller({
      listNodes: () => hosting.listNodes(),
      isWatched: () => true,
      api: (n: HostedNode) => (
        polls++, createNodeApiClient({ baseUrl: n.invoke_url!, credentials: { kind: 'token', token: emulator.nodeApiToken }, retries: 0 })
      ),
      states: createActivityStateRepo(db),
      publish: () => undefined,
      now: () => Date.now(),
      logger,
      intervalMs: 30_000,
    });
    relay.cut();
    await expect(poller.pollOnce()).resolves.toBeUndefined();
    expect(warned.some((m) => /poll pass failed|polling a node failed/.test(m))).toBe(true);
    relay.restore();
    polls = 0;
    await poller.pollOnce();
    expect(polls).toBeGreaterThan(0);
    expect(
      (await createActivityStateRepo(db).get((await hosting.listNodes()).find((n) => n.status === 'RUNNING')!.nodeId)) !== undefined,
    ).toBe(true);
  });
});
