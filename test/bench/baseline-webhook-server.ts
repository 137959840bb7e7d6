/**
 * The webhook intake baseline: a bare Node HTTP server that only verifies the signature
 * and parses the JSON, then answers 200. Whatever the bot does more (durable store,
 * dedupe, routing) is measured against this, in the same run on the same machine.
 */
import http from 'node:http';
import { verify, type KeyObject } from 'node:crypto';

export async function startBaselineServer(publicKey: KeyObject): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const sig = req.headers['x-service-signature'];
      const ok = typeof sig === 'string' && verify(null, body, publicKey, Buffer.from(sig, 'base64'));
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
