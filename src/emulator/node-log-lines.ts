/**
 * The lines of an emulated node's log export (rln.log): what an RGB Lightning Node prints as it
 * starts, syncs, and serves API calls, with the node's own builds and status, and, as real logs
 * sometimes do, a few secrets printed in the clear (a password in a request dump, a bearer
 * token, a mnemonic), so the bot's masking of node logs is exercised on real text.
 */
export interface NodeLogInput {
  name: string;
  nodeId: string;
  status: string;
  imageVersion: string;
  builds: Array<{ timestamp?: string; buildNumber?: number; action?: unknown; buildStatus?: string }>;
  /** Fake secrets to print (never the emulator's real tokens). */
  leaked: { password: string; token: string; mnemonic: string; flagPassword: string; rpcPassword: string; basic: string; xprv: string };
}

const MODULES = [
  'rgb_lightning_node::ldk',
  'rgb_lightning_node::routes',
  'lightning::ln::peer_handler',
  'rgb_lib::wallet',
  'lightning_background_processor',
];

export function nodeLogLines(n: NodeLogInput, now = Date.now(), count = 120): string[] {
  const at = (i: number) => new Date(now - (count - i) * 7_000).toISOString();
  const lines: string[] = n.builds.map(
    (b) =>
      `${b.timestamp ?? at(0)} INFO hosting: build #${b.buildNumber ?? 0} ${typeof b.action === 'string' ? b.action : 'DEPLOY'} ${b.buildStatus ?? 'UNKNOWN'}`,
  );
  lines.push(`${at(1)} INFO rgb_lightning_node: starting ${n.name} (${n.nodeId}) image ${n.imageVersion}`);
  lines.push(
    `${at(2)} DEBUG rgb_lightning_node::routes: POST /unlock body={"password": "${n.leaked.password}", "bitcoind_rpc_host": "bitcoind"}`,
  );
  lines.push(`${at(3)} DEBUG rgb_lightning_node::auth: request header Authorization: Bearer ${n.leaked.token}`);
  lines.push(`${at(4)} WARN rgb_lib::wallet: backup mnemonic="${n.leaked.mnemonic}" printed at debug level`);
  lines.push(`${at(5)} DEBUG rgb_lib::wallet: mnemonic: ${n.leaked.mnemonic}`);
  lines.push(`${at(6)} INFO supervisor: exec rgb-lightning-node --password ${n.leaked.flagPassword} --network regtest`);
  lines.push(`${at(7)} DEBUG rgb_lib::electrum: Authorization: Basic ${n.leaked.basic}`);
  lines.push(`${at(8)} INFO rgb_lightning_node: bitcoind at http://rpcuser:${n.leaked.rpcPassword}@bitcoind:18443`);
  lines.push(`${at(9)} DEBUG rgb_lib::keys: account key ${n.leaked.xprv}`);
  lines.push(`${at(10)} DEBUG rgb_lib::keys: ${n.leaked.mnemonic.split(' ').reverse().join(' ')}`);
  for (let i = lines.length; i < count - 1; i++) {
    const m = MODULES[i % MODULES.length];
    const what =
      i % 5 === 0
        ? `synced to block ${800_000 + i}`
        : i % 5 === 1
          ? `peer 03${(i * 7919).toString(16).padStart(8, '0')}… ping ok`
          : i % 5 === 2
            ? `GET /nodeinfo 200 ${(i % 17) + 1} ms`
            : i % 5 === 3
              ? `channel monitor persisted (update ${i})`
              : `fee estimate refreshed: ${(i % 9) + 1} sat/vB`;
    lines.push(`${at(i)} ${i % 11 === 0 ? 'DEBUG' : 'INFO'} ${m}: ${what}`);
  }
  lines.push(`${at(count)} INFO rgb_lightning_node: status ${n.status}`);
  return lines;
}
