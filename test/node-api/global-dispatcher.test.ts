/**
 * The node API client's HTTP library (undici) does not become the process's HTTP client: loading it
 * leaves the global dispatcher that Node's fetch and discord.js's own undici use as it was (unset),
 * so their requests are not carried by a dispatcher of another version (a Discord post with a file
 * failed so). A fresh process, since this one's fetch may already have set it.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));

describe('the node API transport and the global dispatcher', () => {
  it('leaves the global dispatcher unset, and the client still calls through its own', () => {
    const script = `(async () => {
      const key = Symbol.for('undici.globalDispatcher.1');
      const { createNodeApiClient } = await import('./src/node-api/index.js');
      createNodeApiClient({ baseUrl: 'http://127.0.0.1:9/x', credentials: { kind: 'none' } });
      console.log(JSON.stringify({ global: globalThis[key] === undefined ? 'unset' : 'set' }));
    })();`;
    const r = spawnSync(process.execPath, [`${root}node_modules/tsx/dist/cli.mjs`, '--eval', script], { cwd: root, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout.trim().split('\n').at(-1)!)).toEqual({ global: 'unset' });
  });
});
