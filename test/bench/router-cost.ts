/**
 * `npx tsx test/bench/router-cost.ts [routed|unrouted] [per]`
 *
 * The router alone (route-pending.ts, createEventRouter), in one process, on a SQLite file with
 * the real schema: events of 50 nodes stored marked "not yet routed" as the webhook path stores
 * them (insertEvents, bursts of 9), and a router pass after every `per` events (default 18: a
 * pass takes what came since the last one, as when the router keeps up). `routed`: one channel
 * watches every node; `unrouted`: none does. Prints the router's CPU µs (process.cpuUsage, every
 * thread) and wall µs per event, its passes only. Quieter than the intake profile, which runs
 * the whole bot under load: run it on two checkouts, one after the other, to compare.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '../../src/log.js';
import { createEventRouter } from '../../src/notify/route-pending.js';
import { NotifyStore, openDatabase } from '../../src/store/index.js';
import { newWatch } from '../support/watch-row.js';

const mode = process.argv[2] === 'unrouted' ? 'unrouted' : 'routed';
const per = Number(process.argv[3] ?? 18);
const EVENTS = 20_000;
const STATUSES = ['RUNNING', 'FAILED', 'PAUSED', 'STOPPED'];

const dir = mkdtempSync(join(tmpdir(), 'router-cost-'));
const db = openDatabase(join(dir, 'bot.db'));
const store = new NotifyStore(db);
if (mode === 'routed') await store.upsertWatch(newWatch());
const router = createEventRouter({ store, now: () => Date.now(), log: silentLogger });
let seq = 0;
let cpuUs = 0;
let wallNs = 0n;
while (seq < EVENTS) {
  for (let k = 0; k < per; k += 9) {
    const burst = Array.from({ length: 9 }, () => {
      seq++;
      const ms = 1_776_340_800_000 + seq;
      return {
        dedupe_key: `k${seq}`,
        node_id: `n${seq % 50}`,
        node_name: null,
        event_type: 'NODE_STATUS_UPDATED',
        status: STATUSES[(seq * 7) % 4],
        event_ts: new Date(ms).toISOString(),
        received_at: ms,
        payload: '{}',
        event_ms: ms,
        route_pending: 1 as const,
      };
    });
    await store.tx(() => store.insertEvents(burst));
  }
  const cpu = process.cpuUsage();
  const wall = process.hrtime.bigint();
  await router.routePending();
  wallNs += process.hrtime.bigint() - wall;
  const d = process.cpuUsage(cpu);
  cpuUs += d.user + d.system;
}
const rows = (await store.outboxRows()).length;
console.log(
  JSON.stringify({
    mode,
    per,
    events: seq,
    outboxRows: rows,
    routerCpuUsPerEvent: Math.round((cpuUs / seq) * 100) / 100,
    routerWallUsPerEvent: Math.round((Number(wallNs) / 1000 / seq) * 100) / 100,
  }),
);
await db.close();
rmSync(dir, { recursive: true, force: true });
