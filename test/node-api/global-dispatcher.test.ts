/**
 * The node API client's HTTP library (undici) does not become the process's HTTP client: after it is
 * loaded, Node's fetch and discord.js's own undici still carry their requests with a dispatcher of
 * their version (a Discord post with a file failed when undici's Agent was the global one), and
 * Node's fetch still has one at all (setting the global back to unset left it with none: every fetch
 * failed an assertion). A fresh process, since this one's fetch has long been loaded.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));

describe('the node API transport and the global dispatcher', () => {
  it("leaves Node's fetch and discord.js's undici their own dispatcher, and the client calls through its own", () => {
    const script = `(async () => {
      const http = await import('node:http');
      const { createRequire } = await import('node:module');
      const req = createRequire(process.cwd() + '/package.json');
      const server = http.createServer((q, r) => {
        q.resume();
        q.on('end', () => r.writeHead(200, { 'content-type': 'application/json' }).end('{"network":"Regtest","height":7}'));
      });
      await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
      const base = 'http://127.0.0.1:' + server.address().port;
      const { createNodeApiClient } = await import('./src/node-api/index.js');
      const client = createNodeApiClient({ baseUrl: base, credentials: { kind: 'none' } });
      const out = {};
      const global = globalThis[Symbol.for('undici.globalDispatcher.1')];
      out.globalIsClients = global instanceof req('undici').Agent;
      try { out.fetch = (await fetch(base + '/x')).status; } catch (e) { out.fetch = String(e); }
      try {
        const d = createRequire(req.resolve('@discordjs/rest'))('undici');
        const form = new d.FormData();
        form.append('files[0]', new Blob(['hello']), 'a.txt');
        const r = await d.request(base + '/post', { method: 'POST', body: form });
        await r.body.text();
        out.discordUndici = r.statusCode;
      } catch (e) { out.discordUndici = String(e); }
      try { out.client = (await client.networkinfo()).height; } catch (e) { out.client = String(e); }
      server.close();
      console.log(JSON.stringify(out));
    })();`;
    const r = spawnSync(process.execPath, [`${root}node_modules/tsx/dist/cli.mjs`, '--eval', script], { cwd: root, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout.trim().split('\n').at(-1)!)).toEqual({ globalIsClients: false, fetch: 200, discordUndici: 200, client: 7 });
  });
});
