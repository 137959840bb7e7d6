// Types only: a value import would load the emulator into every bot (the demo's emulator hands its faults over).
import type { DemoFault, Emulator } from '../emulator/index.js';
import { findNode } from '../engine/index.js';
import { UserError } from '../vocabulary/index.js';

/** The watch kind that hears each fault (the terminal's watch of the node is given it). */
const KIND_OF: Partial<Record<DemoFault, string>> = {
  'stuck-transfer': 'transfers',
  'utxos-used-up': 'utxos',
  'indexer-down': 'infra',
  'proxy-down': 'infra',
  'api-dead': 'liveness',
  'peer-gone': 'peers',
  'backup-old': 'backup',
};

export interface DemoFaults {
  /** `/demo fail <node>`: the node FAILED in the emulator, which tells the bot by webhook. */
  fail(node: string): Promise<string>;
  /** `/demo <fault> <node>`: a fault of the node's API or of the service's record of it (the emulator's `nodeFaults`); answers what happened and what to watch. */
  inject(fault: string, node: string): Promise<string>;
  /** `/demo help`: every fault, one line each. */
  help(): string;
}

/**
 * Demo only: the faults `/demo <fault> <node>` injects. `checkSoon` asks the activity poller to
 * poll the node at once with its slower checks, so each alert comes within one polling interval.
 */
export function demoFaults(emulator: Emulator, checkSoon: (nodeId: string) => void = () => {}): DemoFaults {
  const unknown = (ref: string) => `✖ There is no node ${JSON.stringify(ref.slice(0, 40))}: see /rln node list.`;
  /** The same resolver as /rln: a name that matches several nodes in another case is refused (P31). */
  const resolve = (ref: string) => {
    try {
      const node = findNode(emulator.nodes(), ref.trim());
      return node ? { node } : { refused: unknown(ref) };
    } catch (e) {
      if (e instanceof UserError) return { refused: `✖ ${e.message} ${e.hint ?? ''}`.trim() };
      throw e;
    }
  };
  return {
    async fail(ref) {
      const { node, refused } = resolve(ref);
      if (!node) return refused;
      emulator.setStatus(node.nodeId, 'FAILED');
      return `${node.name} is now FAILED in the emulator: its webhook tells the bot, and an incident opens here. Try its Restart button, or /rln node start ${node.name}.`;
    },
    async inject(fault, ref) {
      const name = fault.toLowerCase() as DemoFault;
      if (!(name in emulator.nodeFaults)) return `✖ There is no demo fault ${JSON.stringify(fault.slice(0, 40))}.\n${this.help()}`;
      const { node, refused } = resolve(ref);
      if (!node) return refused;
      let what: string;
      try {
        what = emulator.fault(node.nodeId, name);
      } catch (err) {
        return `✖ ${node.name}: ${err instanceof Error ? err.message : String(err)}.`;
      }
      checkSoon(node.nodeId);
      const kind = KIND_OF[name];
      const watch = kind
        ? ` A watch with kinds=${kind} posts it within one polling interval: /rln watch add ${node.name} kinds=status,${kind}${
            name === 'indexer-down' || name === 'proxy-down'
              ? ' (the indexer and proxy checked: WATCH_INDEXER_URL, WATCH_PROXY_ENDPOINT, or indexer_url= proxy_endpoint=)'
              : ''
          }`
        : '';
      return `${node.name}: ${what}.${watch}`;
    },
    help() {
      return [
        'Demo faults: /demo <fault> <node>',
        '  fail            the node goes FAILED (an incident with Restart, Logs, Acknowledge)',
        ...Object.entries(emulator.nodeFaults).map(
          ([k, v]) => `  ${k.padEnd(15)} ${v}${KIND_OF[k as DemoFault] ? ` (kinds=${KIND_OF[k as DemoFault]})` : ''}`,
        ),
      ].join('\n');
    },
  };
}
