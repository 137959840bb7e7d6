import { afterEach, describe, expect, it } from 'vitest';
import { runEmulatorCli } from '../../src/emulator/index.js';
import { parseEmulatorArgs } from '../../src/emulator/run-emulator-cli.js';
import type { Emulator } from '../../src/emulator/index.js';

const open: Emulator[] = [];
afterEach(async () => {
  while (open.length) await open.pop()!.close();
});

describe('runEmulatorCli', () => {
  it('prints the URL and key type but not a token given with --token', async () => {
    const lines: string[] = [];
    const token = 'cli-given-token-abcdef';
    const e = await runEmulatorCli(['--port', '0', '--token', token, '--key-type', 'rsa', '--delay', '20'], {
      out: (l) => lines.push(l),
      handleSignals: false,
    });
    open.push(e);
    const text = lines.join('\n');
    expect(text).toContain(e.url);
    expect(text).toContain('rsa');
    expect(text).not.toContain(token);
    expect(e.token).toBe(token);
    const res = await fetch(`${e.url}/api/nodes`, { headers: { authorization: `Bearer ${token}` } });
    expect(((await res.json()) as { nodes: unknown[] }).nodes).toHaveLength(3);
  });

  it('prints a generated token so the user can use it', async () => {
    const lines: string[] = [];
    const e = await runEmulatorCli(['--seed=none'], { out: (l) => lines.push(l), handleSignals: false });
    open.push(e);
    expect(lines.join('\n')).toContain(e.token);
    expect(e.nodes()).toHaveLength(0);
  });

  it('refuses unknown flags and bad values with the usage', () => {
    expect(() => parseEmulatorArgs(['--key-type', 'dsa'])).toThrow(/ed25519, p256, secp256k1, rsa/);
    expect(() => parseEmulatorArgs(['--port', 'x'])).toThrow(/Usage/);
    expect(() => parseEmulatorArgs(['--nope'])).toThrow(/unknown argument/);
    expect(parseEmulatorArgs(['--delay', '5', '--port=8080'])).toMatchObject({ lifecycleDelayMs: 5, port: 8080 });
  });
});

describe('--seed-nodes and --latency: an account at scale for the benchmarks', () => {
  it('seeds N more nodes, RUNNING, initialised and unlocked, and delays each node API call by --latency', async () => {
    const lines: string[] = [];
    const e = await runEmulatorCli(['--seed', 'none', '--seed-nodes', '12', '--latency', '150'], {
      out: (l) => lines.push(l),
      handleSignals: false,
    });
    open.push(e);
    expect(lines.join('\n')).toContain('12 more nodes');
    const listed = (await (await fetch(`${e.url}/api/nodes`, { headers: { authorization: `Bearer ${e.token}` } })).json()) as {
      nodes: Array<{ name: string; status: string; invoke_url: string }>;
    };
    expect(listed.nodes).toHaveLength(12);
    expect(new Set(listed.nodes.map((n) => n.name)).size).toBe(12);
    expect(listed.nodes.every((n) => n.status === 'RUNNING' && n.invoke_url)).toBe(true);
    // Over the node API, as the bot calls it: each node answers unlocked (a locked or new one would refuse /listchannels).
    const call = (n: { invoke_url: string }, endpoint: string) =>
      fetch(`${n.invoke_url.replace(/\/$/, '')}/${endpoint}`, { headers: { authorization: `Bearer ${e.nodeApiToken}` } });
    for (const n of listed.nodes) {
      const res = await call(n, 'listchannels');
      expect(res.status).toBe(200);
    }
    // The latency applies to node API calls: a node call is not answered before it.
    const started = performance.now();
    await call(listed.nodes[0], 'nodeinfo');
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
  });

  it('reads --seed-nodes as a count', () => {
    expect(parseEmulatorArgs(['--seed-nodes', '2000'])).toMatchObject({ seedNodes: 2000 });
    expect(() => parseEmulatorArgs(['--seed-nodes', 'many'])).toThrow(/--seed-nodes must be a non-negative integer/);
  });
});
