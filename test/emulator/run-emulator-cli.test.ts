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
