/**
 * Several replicas and one Discord gateway: two Discord adapters on one PostgreSQL database,
 * each following the `discord-gateway` lease (createLeader, short leases), against the fake
 * Discord. One holds a gateway session at a time; when it stops, or loses its database, the
 * other connects within ttl + renew.
 */
import { describe, it, expect, afterEach } from 'vitest';
import { createDiscordAdapter, type DiscordAdapter } from '../../../src/chat/discord/index.js';
import { loadConfig } from '../../../src/config.js';
import { silentLogger } from '../../../src/log.js';
import { createLeader, type Leader } from '../../../src/store/index.js';
import { createRegistry, type Dispatcher } from '../../../src/engine/index.js';
import { createLeases, openPostgres, type AnyDb, type Leases } from '../../../src/store/index.js';
import { allCommands } from '../../../commands/index.js';
import { startFakeDiscord, type FakeDiscord } from '../../fakes/discord/index.js';
import { newPostgresUrl } from '../../support/databases.js';
import { waitFor } from '../../support/wait-for.js';

const TOKEN = 'discord-bot-token-for-tests-0123456789';
const TTL = 1_000;
const RENEW = 200;

/** No interaction is sent here: the replicas' dispatcher is never called. */
const unused: Dispatcher = {
  dispatch: () => Promise.reject(new Error('not used')),
  suggestNodes: async () => [],
  prepareMessage: async (m) => m,
};

describe('the Discord gateway follows the leader lease across replicas', () => {
  const cleanup: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const f of cleanup.splice(0).reverse()) await f().catch(() => undefined);
  });

  async function replicas() {
    const fake = await startFakeDiscord({ expectedToken: TOKEN });
    cleanup.push(() => fake.close());
    const url = await newPostgresUrl('gateway');
    const config = loadConfig({
      DISCORD_TOKEN: TOKEN,
      DISCORD_APPLICATION_ID: fake.applicationId,
      DISCORD_API_URL: fake.apiUrl,
      LOG_LEVEL: 'silent',
    });
    const registry = createRegistry(allCommands);
    const replica = async (owner: string) => {
      const db: AnyDb = await openPostgres(url);
      cleanup.push(() => db.close());
      const real = createLeases(db);
      const state = { dbDown: false, leader: undefined as Leader | undefined };
      // The replica's view of the database: `dbDown` makes every call fail, as a lost connection does.
      const leases: Leases = {
        claim: (...a) => (state.dbDown ? Promise.reject(new Error('Connection terminated unexpectedly')) : real.claim(...a)),
        release: (...a) => (state.dbDown ? Promise.reject(new Error('Connection terminated unexpectedly')) : real.release(...a)),
        holder: (...a) => real.holder(...a),
        prune: (...a) => real.prune(...a),
      };
      const adapter: DiscordAdapter = createDiscordAdapter({
        config,
        dispatcher: unused,
        registry,
        logger: silentLogger,
        registerOnStart: false,
        gatewayLeader: (gateway) =>
          (state.leader = createLeader({ leases, name: 'discord-gateway', owner, ttlMs: TTL, renewMs: RENEW, ...gateway })),
      });
      cleanup.push(() => adapter.stop());
      await adapter.start();
      return { adapter, state, leading: () => state.leader?.leading ?? false };
    };
    const a = await replica('replica-a');
    const b = await replica('replica-b');
    return { fake, a, b };
  }

  const oneSession = (fake: FakeDiscord) => waitFor(() => fake.gatewaySessions() === 1, { timeout: 5_000, what: 'one gateway session' });

  it('one replica holds the gateway; the other does not connect', async () => {
    const { fake, a, b } = await replicas();
    expect(a.leading()).toBe(true); // the first to start takes the free lease
    expect(b.leading()).toBe(false);
    await oneSession(fake);
    await new Promise((r) => setTimeout(r, TTL * 2));
    expect(fake.gatewaySessions()).toBe(1);
    expect(fake.gatewayOps.filter((o) => o.op === 2)).toHaveLength(1); // one identify in all
  });

  it('when the holder stops, the standby connects at its next claim', async () => {
    const { fake, a, b } = await replicas();
    await oneSession(fake);
    const t0 = Date.now();
    await a.adapter.stop();
    await waitFor(() => b.leading() && fake.gatewaySessions() === 1, { timeout: 5_000, what: 'the standby to hold the gateway' });
    expect(Date.now() - t0).toBeLessThan(RENEW * 2 + 3_000); // a claim period, plus the fake's login
    expect(fake.gatewayOps.filter((o) => o.op === 2)).toHaveLength(2);
  });

  it('when the holder loses its database, it disconnects, and the standby connects once the lease runs out (within ttl + renew)', async () => {
    const { fake, a, b } = await replicas();
    await oneSession(fake);
    const t0 = Date.now();
    a.state.dbDown = true;
    await waitFor(() => !a.leading() && fake.gatewaySessions() === 0, { timeout: RENEW * 5, what: 'the cut-off holder to disconnect' });
    // The lease it can no longer renew still stands until it runs out: nobody holds the gateway meanwhile.
    expect(b.leading()).toBe(false);
    await waitFor(() => b.leading(), { timeout: TTL + RENEW * 3, what: 'the standby to take the lease' });
    expect(Date.now() - t0).toBeLessThanOrEqual(TTL + RENEW + 500);
    await oneSession(fake);
    expect(a.leading()).toBe(false);
  });
});
