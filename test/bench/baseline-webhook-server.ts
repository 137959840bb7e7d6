/**
 * The webhook intake baseline: a bare Node HTTP server that only verifies the signature
 * and parses the JSON, then answers 200. Whatever the bot does more (durable store,
 * dedupe, routing) is measured against this, in the same run on the same machine. The
 * intake benchmark runs it as a script, in its own process, as the bot runs in its own.
 */
import http from 'node:http';
import { createPublicKey, type KeyObject } from 'node:crypto';
import { ed25519 } from '../../src/webhooks/ed25519.js';
import { pathToFileURL } from 'node:url';

export async function startBaselineServer(publicKey: KeyObject): Promise<{ url: string; close(): Promise<void> }> {
  // The bot's own Ed25519 verification (libsodium when its addon loads, as in the bot): the
  // receivers verify as cheaply as the bot does, so a ratio measures the bot's own work.
  const verifyEd25519 = ed25519().verify;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const sig = req.headers['x-service-signature'];
      const ok = typeof sig === 'string' && verifyEd25519(publicKey, body, Buffer.from(sig, 'base64'));
      if (!ok) {
        res.writeHead(401).end();
        return;
      }
      try {
        JSON.parse(body.toString('utf8'));
      } catch {
        res.writeHead(400).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(() => r())) };
}

// Run as a script (processes.ts#startBaselineProcess): the baseline in its own process.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const pem = process.env.BASELINE_PUBLIC_KEY;
  if (!pem) throw new Error('BASELINE_PUBLIC_KEY must hold the PEM public key that verifies the events');
  const server = await startBaselineServer(createPublicKey(pem));
  process.stdout.write(`baseline listening on ${server.url}\n`);
  process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));
}
