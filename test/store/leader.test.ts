/**
 * The leader lease on a real PostgreSQL database shared by two "replicas" (two leaders, each
 * with its own connection pool), and on SQLite (one process: it simply wins). Real time, short
 * leases.
 */
import { describe, it, expect, afterEach } from 'vitest';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createLeader, type Leader } from '../../src/store/index.js';
import { createLeases, openPostgres, openDatabase, type AnyDb, type Leases } from '../../src/store/index.js';
import { newPostgresUrl } from '../support/databases.js';
import { waitFor } from '../support/wait-for.js';

// Wide enough that a loaded machine's late timers (hundreds of ms) do not decide the outcome.
const TTL = 3_000;
const RENEW = 500;

/** A replica's leases that can "die": every call then hangs for ever, as with a SIGKILLed process (nothing is released). */
function mortal(leases: Leases) {
  let dead = false;
  const never = new Promise<never>(() => undefined);
  return {
    leases: {
      claim: (...a) => (dead ? never : leases.claim(...a)),
      release: (...a) => (dead ? never : leases.release(...a)),
      holder: (...a) => (dead ? never : leases.holder(...a)),
      prune: (...a) => (dead ? never : leases.prune(...a)),
    } satisfies Leases,
    kill: () => void (dead = true),
  };
}

function replica(db: AnyDb, owner: string, events: string[]) {
  const m = mortal(createLeases(db));
  const leader = createLeader({
    leases: m.leases,
    name: 'discord-gateway',
    owner,
    ttlMs: TTL,
    renewMs: RENEW,
    onLead: async () => void events.push(`${owner} leads`),
    onLose: async () => void events.push(`${owner} loses`),
  });
  return { leader, kill: m.kill };
}

describe('createLeader on PostgreSQL: one of two replicas leads, and the other takes over', () => {
  const open: Array<{ leader: Leader; db: AnyDb }> = [];
  afterEach(async () => {
    for (const r of open.splice(0)) {
      await Promise.race([r.leader.stop(), new Promise((r2) => setTimeout(r2, 200))]);
      await r.db.close();
    }
  });

  async function two() {
    const url = await newPostgresUrl('leader');
    const dbA = await openPostgres(url);
    const dbB = await openPostgres(url);
    const events: string[] = [];
    const a = replica(dbA, 'replica-a', events);
    const b = replica(dbB, 'replica-b', events);
    open.push({ leader: a.leader, db: dbA }, { leader: b.leader, db: dbB });
    await Promise.all([a.leader.start(), b.leader.start()]);
    return { a, b, events, holder: () => createLeases(dbB).holder('discord-gateway', Date.now()) };
  }

  it('exactly one wins, and keeps the lease by renewing it past its ttl', async () => {
    const { a, b, events, holder } = await two();
    expect([a.leader.leading, b.leader.leading].filter(Boolean)).toHaveLength(1);
    const winner = a.leader.leading ? 'replica-a' : 'replica-b';
    expect(events).toEqual([`${winner} leads`]);
    // Past the end of the lease its first claim took (by a renewal period, in which the other
    // replica claims once too): it still holds it, so it renewed it.
    const t0 = Date.now();
    await new Promise((r) => setTimeout(r, TTL + RENEW));
    expect(Date.now() - t0).toBeGreaterThanOrEqual(TTL);
    expect(await holder()).toBe(winner);
    expect(events).toEqual([`${winner} leads`]);
  });

  it('stop() releases: the standby leads at its next claim (within renewMs)', async () => {
    const { a, b, events, holder } = await two();
    const [first, second] = a.leader.leading ? [a, b] : [b, a];
    const t0 = Date.now();
    await first.leader.stop();
    await waitFor(() => second.leader.leading, { timeout: RENEW * 4, what: 'the standby to lead' });
    expect(Date.now() - t0).toBeLessThan(RENEW * 4);
    expect(await holder()).toBe(second === a ? 'replica-a' : 'replica-b');
    expect(events.filter((e) => e.endsWith('leads'))).toHaveLength(2);
    expect(events.at(-2)).toMatch(/loses$/); // the first stopped its work before the second started
  });

  it('a holder that dies (nothing released) is replaced once its lease runs out: within ttl + renew', async () => {
    const { a, b } = await two();
    const [first, second] = a.leader.leading ? [a, b] : [b, a];
    const t0 = Date.now();
    first.kill();
    // Not before the lease runs out: the dead holder's last claim still stands.
    await new Promise((r) => setTimeout(r, TTL / 2));
    expect(second.leader.leading).toBe(false);
    await waitFor(() => second.leader.leading, { timeout: TTL + RENEW * 3, what: 'the standby to lead after the holder died' });
    expect(Date.now() - t0).toBeLessThanOrEqual(TTL + RENEW * 3);
  });

  it('a holder whose renewals fail stops its work; a holder that finds its lease taken stops too', async () => {
    const url = await newPostgresUrl('leader');
    const db = await openPostgres(url);
    const events: string[] = [];
    const leases = createLeases(db);
    let failing = false;
    const flaky: Leases = {
      ...leases,
      claim: (...a) => (failing ? Promise.reject(new Error('connection terminated')) : leases.claim(...a)),
    };
    const leader = createLeader({
      leases: flaky,
      name: 'x',
      owner: 'me',
      ttlMs: TTL,
      renewMs: RENEW,
      onLead: async () => void events.push('lead'),
      onLose: async () => void events.push('lose'),
    });
    open.push({ leader, db });
    await leader.start();
    expect(leader.leading).toBe(true);
    failing = true;
    // It keeps leading through a failed renewal while its lease has time left, and gives up
    // before the lease could run out and be taken.
    const failedAt = Date.now();
    await waitFor(() => !leader.leading, { timeout: TTL + RENEW * 2, what: 'the leader to give up when it cannot renew' });
    expect(Date.now() - failedAt).toBeLessThan(TTL);
    await waitFor(() => events.at(-1) === 'lose', { what: 'onLose' });
    failing = false;
    await waitFor(() => leader.leading, { timeout: RENEW * 4, what: 'it to lead again once the database answers' });
    // Another owner takes the lease while this one is stalled (its lease ran out): this one loses it.
    await db.run('UPDATE store_leases SET owner = ?, until = ? WHERE name = ?', ['someone-else', Date.now() + 60_000, 'x']);
    await waitFor(() => !leader.leading, { timeout: RENEW * 4, what: 'the leader to notice the lease was taken' });
    expect(events).toEqual(['lead', 'lose', 'lead', 'lose']);
  });

  it('a holder whose renewal hangs (no answer at all) stops its work before its lease could be taken', async () => {
    const url = await newPostgresUrl('leader');
    const db = await openPostgres(url);
    const events: string[] = [];
    const leases = createLeases(db);
    let hanging = false;
    const stuck: Leases = { ...leases, claim: (...a) => (hanging ? new Promise<boolean>(() => undefined) : leases.claim(...a)) };
    const leader = createLeader({
      leases: stuck,
      name: 'h',
      owner: 'me',
      ttlMs: TTL,
      renewMs: RENEW,
      onLead: async () => void events.push('lead'),
      onLose: async () => void events.push('lose'),
    });
    open.push({ leader, db });
    await leader.start();
    expect(leader.leading).toBe(true);
    const lastRenewal = Date.now();
    hanging = true;
    await waitFor(() => events.at(-1) === 'lose', { timeout: TTL * 2, what: 'the leader to step down while its renewal hangs' });
    // Stepped down before the lease it last renewed could end (when another replica may take it).
    expect(Date.now() - lastRenewal).toBeLessThan(TTL + RENEW);
    expect(leader.leading).toBe(false);
  });

  it('a slow onLead does not hold up the renewals that keep the lease', async () => {
    const url = await newPostgresUrl('leader');
    const dbA = await openPostgres(url);
    const dbB = await openPostgres(url);
    const quiet = async () => undefined;
    // Its start outlasts its lease by a few renewal periods (a gateway login may take many
    // seconds): had the renewals waited for it, the other would have taken the lease by then.
    const slow = createLeader({
      leases: createLeases(dbA),
      name: 'g',
      owner: 'slow',
      ttlMs: TTL,
      renewMs: RENEW,
      onLead: () => new Promise((r) => setTimeout(r, TTL + 3 * RENEW)),
      onLose: quiet,
    });
    const other = createLeader({
      leases: createLeases(dbB),
      name: 'g',
      owner: 'other',
      ttlMs: TTL,
      renewMs: RENEW,
      onLead: quiet,
      onLose: quiet,
    });
    open.push({ leader: slow, db: dbA }, { leader: other, db: dbB });
    const starting = slow.start();
    await new Promise((r) => setTimeout(r, 50));
    await other.start();
    await starting;
    expect(slow.leading).toBe(true);
    expect(other.leading).toBe(false);
  });
});

describe('createLeader across processes: the holder is SIGKILLed', () => {
  it('a standby leads within ttl + renew of the kill, with nothing released by the dead holder', async () => {
    const url = await newPostgresUrl('leader');
    const ttl = 1_500;
    const renew = 300;
    const child = spawn(
      process.execPath,
      [
        '--require',
        fileURLToPath(new URL('../../node_modules/tsx/dist/preflight.cjs', import.meta.url)),
        '--import',
        new URL('../../node_modules/tsx/dist/loader.mjs', import.meta.url).href,
        fileURLToPath(new URL('../support/leader-process.ts', import.meta.url)),
      ],
      { env: { ...process.env, LEADER_URL: url, LEADER_OWNER: 'killed', LEADER_TTL_MS: String(ttl), LEADER_RENEW_MS: String(renew) } },
    );
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    try {
      await waitFor(() => out.includes('leading'), { timeout: 15_000, what: () => `the child to lead; it said: ${out}` });
      const db = await openPostgres(url);
      const events: string[] = [];
      const standby = createLeader({
        leases: createLeases(db),
        name: 'discord-gateway',
        owner: 'standby',
        ttlMs: ttl,
        renewMs: renew,
        onLead: async () => void events.push('lead'),
        onLose: async () => undefined,
      });
      try {
        await standby.start();
        expect(standby.leading).toBe(false);
        const exited = new Promise((r) => child.once('exit', r));
        const t0 = Date.now();
        child.kill('SIGKILL');
        await exited;
        expect(await createLeases(db).holder('discord-gateway', Date.now())).toBe('killed'); // nothing released
        await waitFor(() => standby.leading, { timeout: ttl + renew * 3, what: 'the standby to lead after the kill' });
        expect(Date.now() - t0).toBeLessThanOrEqual(ttl + renew + 500);
        expect(events).toEqual(['lead']);
      } finally {
        await standby.stop();
        await db.close();
      }
    } finally {
      child.kill('SIGKILL');
    }
  });
});

describe('createLeader on SQLite (one process)', () => {
  it('leads at start and releases on stop', async () => {
    const db = openDatabase(':memory:');
    const events: string[] = [];
    const leader = createLeader({
      leases: createLeases(db),
      name: 'discord-gateway',
      owner: 'only',
      onLead: async () => void events.push('lead'),
      onLose: async () => void events.push('lose'),
    });
    await leader.start();
    expect(leader.leading).toBe(true);
    await leader.stop();
    expect(events).toEqual(['lead', 'lose']);
    expect(await createLeases(db).holder('discord-gateway', Date.now())).toBeUndefined();
    await db.close();
  });
});
