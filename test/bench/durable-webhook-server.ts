/**
 * The durable limit of webhook intake (issue 29): a plain `node:http` server that does what the
 * bot's 2xx promises and nothing more. It verifies the same Ed25519 signature as the bare
 * baseline, parses the event, and writes it to SQLite (better-sqlite3, WAL, `synchronous =
 * NORMAL`) under a unique dedupe key computed and stored as the bot's is (`dedupeKeyOf`, kept
 * behind the event's own time by `storedEventKey`). Everything that arrived in one turn of the
 * event loop is committed in one transaction, and each request is answered 200 only after that
 * commit. WAL checkpoints run on a worker thread, as the bot's do (the same checkpointer, with
 * the connection's own automatic checkpoint as the same backstop).
 *
 * The intake benchmark runs it as a script, in its own process and on the bot's core: the bot's
 * throughput is reported as a share of this one, measured in the same run.
 *
 * For attribution only (not the limit of record): with `DURABLE_WITH_BOT_INDEXES=1` in the
 * benchmark's environment, its table also carries the two indexes the bot's events table
 * maintains on every insert (per node, and the partial "not yet routed" one, each row inserted
 * marked), so a run tells what the bot's schema costs apart from the bot's code.
 */
import http from 'node:http';
import { createPublicKey, type KeyObject } from 'node:crypto';
import { ed25519 } from '../../src/webhooks/ed25519.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { readEvent } from '../../src/webhooks/read-event.js';
import { storedEventKey } from '../../src/store/notify-store.js';
import { startCheckpointer } from '../../src/store/sql/sqlite-checkpointer.js';

type Waiting = { key: string; nodeId: string; eventType: string; body: string; res: http.ServerResponse };

export async function startDurableServer(
  publicKey: KeyObject,
  dbPath: string,
  o: { botIndexes?: boolean } = {},
): Promise<{ url: string; close(): Promise<void>; count(): number }> {
  const db = new Database(dbPath);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('temp_store = MEMORY');
  db.exec(`CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY,
    dedupe_key TEXT NOT NULL UNIQUE,
    node_id TEXT NOT NULL,
    event_type TEXT NOT NULL,
    received_at INTEGER NOT NULL,
    payload TEXT NOT NULL,
    route_pending INTEGER
  )`);
  if (o.botIndexes) {
    // As the bot's migrations (store/migrations/notify.ts): per node, and the events not yet routed.
    db.exec('CREATE INDEX IF NOT EXISTS events_node ON events (node_id, id)');
    db.exec('CREATE INDEX IF NOT EXISTS events_route_pending ON events (id) WHERE route_pending IS NOT NULL');
  }
  // As the bot: the connection's own checkpoint only as a backstop, the real ones on a worker.
  db.pragma('wal_autocheckpoint = 10000');
  // As the bot: when the WAL is long, the writer pauses (its batch waits) while the worker restarts it.
  let paused = false;
  const checkpointer = startCheckpointer(dbPath, {
    pause: async (work) => {
      paused = true;
      try {
        await work();
      } finally {
        paused = false;
        if (batch.length) setImmediate(flush);
      }
    },
  });
  const insert = db.prepare<unknown[]>(
    'INSERT INTO events (dedupe_key, node_id, event_type, received_at, payload, route_pending) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (dedupe_key) DO NOTHING',
  );
  const pending = o.botIndexes ? 1 : null;
  const writeAll = db.transaction((batch: Waiting[], now: number) => {
    for (const w of batch) insert.run(w.key, w.nodeId, w.eventType, now, w.body, pending);
  });

  let batch: Waiting[] = [];
  const flush = () => {
    if (paused) return; // flushed when the pause ends
    const current = batch;
    batch = [];
    try {
      writeAll(current, Date.now());
    } catch {
      for (const w of current) w.res.writeHead(503).end();
      return;
    }
    // Committed: only now is each event answered.
    for (const w of current) w.res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  };

  // The bot's own Ed25519 verification (libsodium when its addon loads, as in the bot): the
  // receivers verify as cheaply as the bot does, so a ratio measures the bot's own work.
  const verifyEd25519 = ed25519().verify;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const sig = req.headers['x-service-signature'];
      const ok = typeof sig === 'string' && verifyEd25519(publicKey, raw, Buffer.from(sig, 'base64'));
      if (!ok) {
        res.writeHead(401).end();
        return;
      }
      const body = raw.toString('utf8');
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        res.writeHead(400).end();
        return;
      }
      // The bot's reading of an event, and so its dedupe key (node, type, status, time, details).
      const read = readEvent(json, raw);
      if (!read.ok) {
        res.writeHead(400).end();
        return;
      }
      const { nodeId, eventType, eventMs, dedupeKey } = read.event;
      const key = storedEventKey(dedupeKey, eventMs) ?? dedupeKey;
      if (batch.push({ key, nodeId, eventType, body, res }) === 1) setImmediate(flush);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    count: () => Number(db.prepare('SELECT COUNT(*) AS n FROM events').pluck().get()),
    close: async () => {
      await new Promise((r) => server.close(() => r(undefined)));
      await checkpointer.stop();
      db.close();
    },
  };
}

// Run as a script (processes.ts#startBaselineProcess): the receiver in its own process, on a database of its own.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const pem = process.env.BASELINE_PUBLIC_KEY;
  if (!pem) throw new Error('BASELINE_PUBLIC_KEY must hold the PEM public key that verifies the events');
  const dir = mkdtempSync(join(tmpdir(), 'rln-durable-'));
  const server = await startDurableServer(createPublicKey(pem), join(dir, 'events.db'), {
    botIndexes: process.env.DURABLE_WITH_BOT_INDEXES === '1',
  });
  process.stdout.write(`durable receiver listening on ${server.url}\n`);
  process.on(
    'SIGTERM',
    () =>
      void server.close().then(() => {
        rmSync(dir, { recursive: true, force: true });
        process.exit(0);
      }),
  );
}
