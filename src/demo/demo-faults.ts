import type { Emulator } from '../emulator/index.js';

/** Demo only: `/demo fail <node>` sets a node FAILED in the emulator, which tells the bot by webhook. */
export function demoFaults(emulator: Emulator): { fail(node: string): Promise<string> } {
  return {
    async fail(ref) {
      const nodes = emulator.nodes();
      const node = nodes.find((n) => n.nodeId === ref) ?? nodes.find((n) => n.name.toLowerCase() === ref.toLowerCase());
      if (!node) return `✖ There is no node ${JSON.stringify(ref.slice(0, 40))}: see /rln node list.`;
      emulator.setStatus(node.nodeId, 'FAILED');
      return `${node.name} is now FAILED in the emulator: its webhook tells the bot, and an incident opens here. Try its Restart button, or /rln node start ${node.name}.`;
    },
  };
}
