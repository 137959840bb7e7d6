import type { NodeWorldLike } from './types.js';

/**
 * Loads the NodeWorld of ./node-api (written in parallel by another room). Until it exists,
 * a stand-in answers every node API call 501 NotImplemented, so the management API still works.
 */
export async function loadNodeWorld(opts: { fundingSat?: number }): Promise<NodeWorldLike> {
  const specifier = './node-api/index.js';
  try {
    const mod = (await import(specifier)) as { NodeWorld?: new (o?: { fundingSat?: number }) => NodeWorldLike };
    if (typeof mod.NodeWorld === 'function') return new mod.NodeWorld({ fundingSat: opts.fundingSat });
  } catch {
    // fall through to the stand-in
  }
  return {
    addNode() {},
    removeNode() {},
    async handle(_nodeId, _method, endpoint) {
      return { status: 501, body: { error: `The node API emulation is not available (${endpoint})`, code: 501, name: 'NotImplemented' } };
    },
  };
}
