/**
 * A POST whose head announces a body that is never sent, over a raw loopback socket: a server
 * that answers it has provably decided without reading the body.
 */
import { connect, type Socket } from 'node:net';

export interface HeadOnly {
  socket: Socket;
  /** The status line's code, once the server answers; rejects if it closes without one. */
  status: Promise<number>;
}

export function postHeadOnly(port: number, path: string, length: number, headers: Record<string, string> = {}): HeadOnly {
  const socket = connect(port, '127.0.0.1');
  const extra = Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  socket.write(`POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n${extra}\r\n`);
  const status = new Promise<number>((resolve, reject) => {
    let got = '';
    socket.on('data', (c) => {
      got += String(c);
      const m = /^HTTP\/1\.1 (\d{3})/.exec(got);
      if (m) resolve(Number(m[1]));
    });
    socket.on('error', reject);
    socket.on('close', () => reject(new Error(`closed without an answer: ${JSON.stringify(got)}`)));
  });
  status.catch(() => undefined); // a held request may be destroyed unanswered
  return { socket, status };
}
