// Closing the emulator ends its connections at once, a request still arriving included: a
// client that went quiet mid-request (a bot stopped during a call) must not hold the close
// (node:http waits for such a connection until its own timeouts end it: 70 s in a teardown).
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';

describe('emulator close', () => {
  it('ends a connection whose request is half sent, and resolves', async () => {
    const e = await startEmulator({ seed: 'demo', lifecycleDelayMs: 20 });
    const { hostname, port } = new URL(e.url);
    const socket = connect(Number(port), hostname);
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    // Headers that never end: the server is receiving a request on this connection, so it is not idle.
    socket.write(`GET /api/nodes HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bearer ${e.token}\r\nX-Partial: `);
    // The bytes are in the server's socket at once (loopback): after two check phases, a poll
    // phase has come between, in which the server read them and began the request.
    for (let i = 0; i < 2; i++) await new Promise<void>((resolve) => setImmediate(resolve));
    await e.close();
    await ended;
    expect(socket.destroyed).toBe(true);
  }, 20_000);
});
