/**
 * A minimal Slack Web API on loopback, for tests of the bot as a process (SLACK_API_URL): answers
 * every method ok, records what was called, and can hold one method's answers until `release`
 * (a Slack slow to answer, or one that never does: held answers are dropped on close).
 */
import http from 'node:http';

export interface SlackApiStub {
  /** SLACK_API_URL for the bot: `http://127.0.0.1:P/api/`. */
  url: string;
  /** Every method called, in order. */
  methods: string[];
  /** The channel of each chat.postMessage. */
  posts: string[];
  /** The bodies posted to a response_url under `${url}respond/`. */
  responds: string[];
  /** Answers the held calls, and holds no more. */
  release(): void;
  close(): Promise<void>;
}

export async function startSlackApiStub(opts: { hold?: string } = {}): Promise<SlackApiStub> {
  const methods: string[] = [];
  const posts: string[] = [];
  const responds: string[] = [];
  let holding = opts.hold;
  const held: Array<() => void> = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const method = (req.url ?? '').split('/').pop() ?? '';
      methods.push(method);
      if ((req.url ?? '').includes('/respond/')) responds.push(body);
      const answer =
        method === 'chat.postMessage'
          ? { ok: true, channel: new URLSearchParams(body).get('channel'), ts: `${Date.now() / 1000}` }
          : { ok: true, user_id: 'UBOT', bot_id: 'B1', team_id: 'T1', user: 'rln', team: 'test' };
      if (method === 'chat.postMessage') posts.push(new URLSearchParams(body).get('channel') ?? body);
      const send = () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
      if (method === holding) held.push(send);
      else send();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/api/`,
    methods,
    posts,
    responds,
    release() {
      holding = undefined;
      for (const send of held.splice(0)) send();
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
