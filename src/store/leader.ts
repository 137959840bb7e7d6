/**
 * A leader: one replica at a time does a piece of work that must not run twice (hold the
 * Discord gateway, for one), through a named lease in the shared database. Platform-neutral:
 * what leading means is the caller's `onLead` and `onLose`.
 *
 * Every `renewMs` the leader claims the lease until now + `ttlMs` (a claim by the holder renews
 * it). It leads from the claim that wins; it loses when a renewal fails (the database is
 * unreachable: it cannot prove it still holds the lease) or the lease was taken (it ran out
 * while this replica was stalled). `stop()` ends leadership and releases the lease, so a standby
 * takes over at its next claim. A replica that dies without stopping (SIGKILL, a lost host)
 * releases nothing: its lease runs out `ttlMs` after its last renewal and a standby claims it
 * within `renewMs` after that: failover takes at most ttlMs + renewMs (25 s by default).
 * Replicas' clocks must agree to well within ttlMs (NTP does).
 */
import type { Leases } from './leases.js';
import { silentLogger, type Logger } from '../log.js';
import { every } from '../vocabulary/index.js';

export interface LeaderOptions {
  leases: Leases;
  /** The lease's name, e.g. `discord-gateway`. */
  name: string;
  /** This replica, unique among those that compete (two replicas with one owner would both lead). */
  owner: string;
  /** How long a claim holds without renewal. Default 20 s. */
  ttlMs?: number;
  /** How often the lease is claimed or renewed. Default 5 s; keep it well below ttlMs. */
  renewMs?: number;
  now?: () => number;
  /** This replica now leads: start the work. A failure gives the lease up (another replica may do better). */
  onLead: () => Promise<void>;
  /** This replica no longer leads: stop the work. */
  onLose: () => Promise<void>;
  log?: Logger;
}

export interface Leader {
  /** Makes the first claim (leading at once if the lease is free), then claims every renewMs. */
  start(): Promise<void>;
  /** Stops claiming; when leading, runs onLose and releases the lease. */
  stop(): Promise<void>;
  readonly leading: boolean;
}

export function createLeader(o: LeaderOptions): Leader {
  const ttlMs = o.ttlMs ?? 20_000;
  const renewMs = o.renewMs ?? 5_000;
  if (renewMs >= ttlMs) throw new Error(`the leader of ${o.name} renews every ${renewMs} ms, not before its lease of ${ttlMs} ms runs out`);
  const now = o.now ?? Date.now;
  const log = o.log ?? silentLogger;
  let leading = false;
  let stopped = false;
  // onLead and onLose run one after the other, off the claiming loop: a slow start (a gateway
  // login may take many seconds) does not hold up the renewals that keep the lease.
  let work: Promise<void> = Promise.resolve();
  const then = (f: () => Promise<void>) => (work = work.then(f));

  const lead = () =>
    then(async () => {
      if (!leading) return;
      try {
        await o.onLead();
      } catch (err) {
        log.error({ err, lease: o.name }, 'starting the leader’s work failed; giving the lease up');
        leading = false;
        await o.onLose().catch(() => undefined);
        await o.leases.release(o.name, o.owner).catch(() => undefined);
      }
    });
  const lose = (why: string) => {
    leading = false;
    log.warn({ lease: o.name, owner: o.owner, why }, 'no longer the leader');
    return then(() => o.onLose().catch((err: unknown) => log.error({ err, lease: o.name }, 'stopping the leader’s work failed')));
  };

  /** When the lease was last renewed: it holds until then + ttlMs. */
  let renewedAt = 0;
  const pass = async () => {
    if (stopped) return;
    const t = now();
    // A leader must know it still holds the lease before another replica may take it: a renewal
    // that has not answered by the time one more renewal period would reach the lease's end
    // counts as failed (a claim that hangs, say on a network partition, would otherwise keep this
    // replica leading after the lease ran out and another one took it).
    const deadline = leading ? renewedAt + ttlMs - renewMs : undefined;
    let held: boolean;
    try {
      const claim = o.leases.claim(o.name, o.owner, t + ttlMs, t);
      let timer: NodeJS.Timeout | undefined;
      held =
        deadline === undefined
          ? await claim
          : await Promise.race([
              claim,
              new Promise<never>((_, reject) => {
                timer = setTimeout(
                  () => reject(new Error('the renewal did not answer before the lease would end')),
                  Math.max(0, deadline - t),
                );
              }),
            ]).finally(() => clearTimeout(timer));
      if (held) renewedAt = t;
    } catch (err) {
      if (leading && now() < renewedAt + ttlMs - renewMs) {
        // One failed renewal with time left on the lease: try again next period rather than drop
        // the gateway (and spend an identify) on a blip.
        log.warn({ err, lease: o.name }, 'could not renew the lease; trying again');
      } else if (leading) {
        log.warn({ err, lease: o.name }, 'could not renew the lease');
        void lose('renewal failed');
      } else {
        log.debug({ err, lease: o.name }, 'could not claim the lease');
      }
      return;
    }
    if (stopped) {
      // stop() ran while this claim was in flight: give back what it took.
      if (held && !leading) await o.leases.release(o.name, o.owner).catch(() => undefined);
      return;
    }
    if (held && !leading) {
      leading = true;
      log.info({ lease: o.name, owner: o.owner }, 'now the leader');
      void lead();
    } else if (!held && leading) {
      void lose('the lease was taken');
    }
  };
  const loop = every(pass, renewMs, (err) => log.error({ err, lease: o.name }, 'a lease pass failed'));

  return {
    get leading() {
      return leading;
    },
    /** Resolves after the first claim and, if it won, once onLead has run. */
    async start() {
      stopped = false;
      await loop.run();
      loop.start();
      await work;
    },
    async stop() {
      stopped = true;
      await loop.stop();
      if (!leading) return void (await work);
      leading = false;
      await then(() => o.onLose().catch((err: unknown) => log.error({ err, lease: o.name }, 'stopping the leader’s work failed')));
      await o.leases
        .release(o.name, o.owner)
        .catch((err: unknown) => log.warn({ err, lease: o.name }, 'could not release the lease; it runs out by itself'));
    },
  };
}
