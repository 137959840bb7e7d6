/**
 * The load generator's own process (started by processes.ts#startLoadProcess): it receives a
 * run over IPC with every request already signed, turns them into Buffers, and only then
 * starts the clock (closed loop: 16 keep-alive connections as fast as answered; open loop:
 * a fixed rate). Answers with the LoadResult. Targets only the loopback URLs it is given (several:
 * round robin between them, as a load balancer in front of replicas).
 */
import { closedLoop, openLoop, type RequestSpec } from './load.js';
import type { LoadCommand } from './processes.js';

function specs(cmd: LoadCommand): RequestSpec[] {
  return cmd.requests.map((r) => ({
    path: r.path,
    body: Buffer.from(r.body),
    headers: { 'content-type': 'application/json', 'x-service-signature': r.signature },
  }));
}

process.on('message', (m) => {
  const cmd = m as LoadCommand;
  void (async () => {
    try {
      for (const u of Array.isArray(cmd.url) ? cmd.url : [cmd.url]) {
        const host = new URL(u).hostname;
        if (host !== '127.0.0.1' && host !== 'localhost') throw new Error(`the load generator only targets loopback, not ${host}`);
      }
      const list = specs(cmd);
      const result =
        cmd.kind === 'closed'
          ? await closedLoop(cmd.url, (i) => list[i], list.length, cmd.concurrency)
          : await openLoop(cmd.url, (i) => list[i], cmd.rate, list.length / cmd.rate);
      process.send!({ result });
    } catch (err) {
      process.send!({ error: err instanceof Error ? err.message : String(err) });
    }
  })();
});
process.on('disconnect', () => process.exit(0));
process.send!({ ready: true });
