/**
 * `npx tsx test/bench/store-write.ts [--events N] [--batch B] [--preload P] [--variant name]`
 *
 * The store alone, in one process, with the real schema and the real write path of a webhook
 * event (create-notifier.ts's webhookRoutes): a group commit of the burst's events, each stored
 * marked "not yet routed" and nothing else (the worker routes them after the 2xx), written at
 * once (insertEventsNow: one prepared row per event), or several per statement (insertEvents)
 * where the database cannot at once. CPU µs per event (process.cpuUsage: every thread, so
 * the checkpointer's too), WAL frames and bytes per event (automatic checkpoints off for that
 * pass), and pages per commit. Batches of `batch` events in one turn of the event loop
 * (1 ≈ a steady 1,000/s, 9 ≈ saturation).
 *
 * Variants (`--variant a,b`): `per-event`, one insertEvent per event (the path before
 * insertEvents); `oldindexes`, with the two events indexes SQLite had before migration 205
 * (per node, and "not yet routed"), for comparison; `nonode`, without the node index (since
 * migration 205, the schema as it is); `legacy-keys`, with a key stored as given by an older
 * version, so that each write also looks for the key as given (the multi-row statements).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { parseArgs } from 'node:util';
import { openDatabase, NotifyStore, groupCommit } from '../../src/store/index.js';
import type { SqliteSql } from '../../src/store/sql/sqlite.js';

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '20000' },
    batch: { type: 'string', default: '9' },
    preload: { type: 'string', default: '20000' },
    nodes: { type: 'string', default: '50' },
    rounds: { type: 'string', default: '3' },
    variant: { type: 'string', default: '' },
  },
});
const N = Number(values.events);
const B = Number(values.batch);
const P = Number(values.preload);
const nodes = Array.from({ length: Number(values.nodes) }, (_, i) => createHash('sha1').update(`n${i}`).digest('hex').slice(0, 32));

let seq = 0;
const t0 = Date.now() - 3600_000;
function event() {
  const i = seq++;
  const nodeId = nodes[i % nodes.length];
  const status = Math.floor(i / nodes.length) % 2 ? 'RUNNING' : 'STARTING';
  const eventTimestamp = new Date(t0 + i).toISOString();
  const payload = { eventType: 'NODE_STATUS_UPDATED', eventTimestamp, details: { nodeId, status }, nodeId };
  const dedupeKey = createHash('sha256')
    .update(['v2', nodeId, 'NODE_STATUS_UPDATED', status, eventTimestamp, JSON.stringify({ nodeId, status })].join('\u0000'))
    .digest('hex');
  return { nodeId, status, eventTimestamp, payload, dedupeKey, ms: t0 + i };
}

async function run(background: boolean) {
  const dir = mkdtempSync(join(tmpdir(), 'rln-store-'));
  const db = openDatabase(join(dir, 'bot.db'), undefined, { backgroundCheckpoints: background }) as SqliteSql;
  const store = new NotifyStore(db);
  if (values.variant.includes('nonode')) db.raw.exec('DROP INDEX IF EXISTS notify_events_node');
  if (values.variant.includes('oldindexes'))
    db.raw.exec(`CREATE INDEX notify_events_node ON notify_events (node_id, id);
      CREATE INDEX notify_events_route_pending ON notify_events (id) WHERE route_pending IS NOT NULL;`);
  const rowOf = (e: ReturnType<typeof event>) => ({
    dedupe_key: e.dedupeKey,
    node_id: e.nodeId,
    node_name: null,
    event_type: 'NODE_STATUS_UPDATED',
    status: e.status,
    event_ts: e.eventTimestamp,
    received_at: Date.now(),
    payload: JSON.stringify(e.payload),
    event_ms: e.ms,
    route_pending: 1,
  });
  const storeEvent = (e: ReturnType<typeof event>) => store.insertEvent(rowOf(e));
  const storeEvents = (es: ReadonlyArray<ReturnType<typeof event>>) => store.insertEvents(es.map(rowOf));
  if (values.variant.includes('legacy-keys'))
    db.raw.exec(
      `INSERT INTO notify_events (dedupe_key, node_id, event_type, received_at, payload, event_ms) VALUES ('legacy', 'n', 'NODE_STATUS_UPDATED', 1, '{}', 1)`,
    );
  const batch = groupCommit(
    (fn) => store.tx(fn),
    storeEvent,
    values.variant.includes('per-event')
      ? {}
      : { writeMany: storeEvents, writeManyNow: (es: ReadonlyArray<ReturnType<typeof event>>) => store.insertEventsNow(es.map(rowOf)) },
  );
  const burst = async (n: number, b: number) => {
    for (let i = 0; i < n; i += b) {
      const ps: Array<Promise<unknown>> = [];
      for (let j = 0; j < b && i + j < n; j++) ps.push(batch(event()));
      await Promise.all(ps);
    }
  };
  await burst(P, 50);
  if (!background) {
    db.raw.pragma('wal_checkpoint(TRUNCATE)');
    db.raw.pragma('wal_autocheckpoint = 0');
  } else {
    await new Promise((r) => setTimeout(r, 1500)); // the checkpointer starts once the WAL passed 1 MiB
  }
  const c0 = process.cpuUsage();
  const w0 = performance.now();
  await burst(N, B);
  const c = process.cpuUsage(c0);
  const wall = performance.now() - w0;
  let frames: number | undefined;
  let byTree: Record<string, number> | undefined;
  if (!background) {
    // Which b-tree each WAL frame belongs to (frame header: page number, big-endian, first 4 bytes).
    const wal = readFileSync(join(dir, 'bot.db-wal'));
    const pageSize = wal.readUInt32BE(8);
    const owner = new Map<number, string>();
    for (const r of db.raw.prepare('SELECT name, pageno FROM dbstat').all() as Array<{ name: string; pageno: number }>)
      owner.set(r.pageno, r.name);
    byTree = {};
    for (let off = 32; off + 24 + pageSize <= wal.length; off += 24 + pageSize) {
      const name = owner.get(wal.readUInt32BE(off)) ?? 'other';
      byTree[name] = (byTree[name] ?? 0) + 1;
    }
    for (const k in byTree) byTree[k] = +((byTree[k] * B) / N).toFixed(2);
    frames = (db.raw.pragma('wal_checkpoint(PASSIVE)') as Array<{ log: number }>)[0].log;
  }
  await db.close();
  rmSync(dir, { recursive: true, force: true });
  return {
    cpu_us_per_event: +((c.user + c.system) / N).toFixed(1),
    sys_us_per_event: +(c.system / N).toFixed(1),
    wall_us_per_event: +((wall * 1000) / N).toFixed(1),
    ...(frames !== undefined
      ? {
          wal_frames_per_event: +(frames / N).toFixed(2),
          wal_bytes_per_event: Math.round((frames * 4120) / N),
          pages_per_commit: +((frames * B) / N).toFixed(1),
          per_commit: byTree,
        }
      : {}),
  };
}

for (let r = 0; r < Number(values.rounds); r++) {
  const frames = await run(false);
  const cpu = await run(true);
  process.stdout.write(
    `${JSON.stringify({ variant: values.variant || 'insertEventsNow', batch: B, preload: P, events: N, checkpointer: cpu, no_checkpoints: frames })}\n`,
  );
}
