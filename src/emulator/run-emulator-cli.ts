import { startEmulator } from './start-emulator.js';
import type { Emulator, EmulatorOptions, KeyType } from './types.js';

const KEY_TYPES: KeyType[] = ['ed25519', 'p256', 'secp256k1', 'rsa'];

export const EMULATOR_USAGE = `Usage: npm run emulator -- [--port N] [--host H] [--token T] [--node-token T]
                          [--key-type ed25519|p256|secp256k1|rsa] [--delay MS] [--seed demo|none]
                          [--latency MS] (every answer delayed, node API calls included, for benchmarks)
                          [--seed-nodes N] (N more nodes, RUNNING, initialised and unlocked)
                          [--demo-password P] [--mine-ms MS]
Runs the hosting service emulator (management API, node APIs, signed webhooks) on loopback.`;

export interface EmulatorCliIo {
  /** Where lines are printed (default console.log). */
  out?: (line: string) => void;
  /** Close the emulator on SIGINT/SIGTERM (default true). */
  handleSignals?: boolean;
}

/** Parses `--port N --token T --key-type K --delay MS ...` into emulator options. Throws with the usage on a bad flag. */
export function parseEmulatorArgs(argv: string[]): EmulatorOptions {
  const opts: EmulatorOptions = { seed: 'demo', autoMineMs: 1000 };
  const fail = (why: string): never => {
    throw new Error(`${why}\n${EMULATOR_USAGE}`);
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const [flag, inline] =
      arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = (): string => {
      const v = inline ?? argv[++i];
      if (v === undefined || v === '') fail(`${flag} needs a value`);
      return v;
    };
    const int = (name: string): number => {
      const v = value();
      const n = Number(v);
      if (!Number.isInteger(n) || n < 0) fail(`${name} must be a non-negative integer, not ${JSON.stringify(v)}`);
      return n;
    };
    switch (flag) {
      case '--port':
        opts.port = int('--port');
        if (opts.port > 65535) fail('--port must be at most 65535');
        break;
      case '--host':
        opts.host = value();
        break;
      case '--token':
        opts.token = value();
        break;
      case '--node-token':
        opts.nodeApiToken = value();
        break;
      case '--key-type': {
        const k = value();
        if (!KEY_TYPES.includes(k as KeyType)) fail(`--key-type must be one of ${KEY_TYPES.join(', ')}, not ${JSON.stringify(k)}`);
        opts.keyType = k as KeyType;
        break;
      }
      case '--delay':
        opts.lifecycleDelayMs = int('--delay');
        break;
      case '--seed': {
        const s = value();
        if (s !== 'demo' && s !== 'none') fail(`--seed must be demo or none, not ${JSON.stringify(s)}`);
        opts.seed = s as 'demo' | 'none';
        break;
      }
      case '--demo-password':
        opts.demoPassword = value();
        break;
      case '--mine-ms':
        opts.autoMineMs = int('--mine-ms');
        break;
      case '--seed-nodes':
        opts.seedNodes = int('--seed-nodes');
        if (opts.seedNodes > 100_000) fail('--seed-nodes must be at most 100000');
        break;
      case '--latency':
        opts.faults = { ...opts.faults, latencyMs: int('--latency') };
        break;
      case '--':
        break;
      default:
        fail(`unknown argument ${JSON.stringify(arg)}`);
    }
  }
  return opts;
}

/**
 * `npm run emulator -- --port N --token T`: starts the emulator and prints its URL, the token
 * (only when it was generated; a given token is shown as a hint) and the signing key type.
 */
export async function runEmulatorCli(argv: string[], io: EmulatorCliIo = {}): Promise<Emulator> {
  const out = io.out ?? ((line: string) => console.log(line));
  const opts = parseEmulatorArgs(argv);
  const emulator = await startEmulator(opts);
  out(`Hosting service emulator listening on ${emulator.url}`);
  out(`  SERVICE_URL=${emulator.url}`);
  out(
    opts.token
      ? `  SERVICE_API_TOKEN: the token given with --token (${opts.token.length} characters)`
      : `  SERVICE_API_TOKEN=${emulator.token}   (generated; pass --token to choose one)`,
  );
  out(
    opts.nodeApiToken
      ? `  NODE_API_TOKEN: the token given with --node-token (${opts.nodeApiToken.length} characters)`
      : `  NODE_API_TOKEN=${emulator.nodeApiToken}   (generated)`,
  );
  out(`  webhook signing key: ${emulator.publicKey.type}, served at ${emulator.url}/api/webhook-public-key`);
  const nodes = emulator.nodes();
  if (opts.demoPassword) out('  alice and bob are initialised and unlocked with the password given with --demo-password');
  if (opts.seedNodes) {
    const password = opts.demoPassword ? 'the password given with --demo-password' : 'the password seed-password';
    out(`  ${opts.seedNodes} more nodes (node-0001, ...), RUNNING, initialised and unlocked with ${password}`);
  }
  if (nodes.length && nodes.length <= 20) out(`  nodes: ${nodes.map((n) => `${n.name} (${n.status})`).join(', ')}`);
  if (io.handleSignals !== false) {
    const stop = (): void => {
      void emulator.close().finally(() => process.exit(0));
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  }
  return emulator;
}
