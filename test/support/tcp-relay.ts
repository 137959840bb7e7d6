/**
 * A TCP relay on loopback that a test can cut (every connection dropped, new ones closed at
 * once) and restore: a database that stops answering, without stopping it.
 */
import { createServer, connect, type Socket } from 'node:net';

/** A TCP relay to `port` on loopback, which can be cut and restored. */
export async function tcpRelay(port: number) {
  const open = new Set<Socket>();
  let up = true;
  const server = createServer((client) => {
    if (!up) return void client.destroy();
    const upstream = connect(port, '127.0.0.1');
    open.add(client).add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    port: (server.address() as { port: number }).port,
    cut() {
      up = false;
      for (const s of open) s.destroy();
    },
    restore() {
      up = true;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
