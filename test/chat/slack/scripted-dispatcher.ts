/** A Dispatcher whose answers a test scripts, recording every invocation it was given. */
import type { Dispatcher, Invocation, Reply } from '../../../src/engine/types.js';

export interface ScriptedDispatcher extends Dispatcher {
  invocations: Invocation[];
}

export function scriptedDispatcher(answer: (inv: Invocation) => Promise<Reply> | Reply): ScriptedDispatcher {
  const invocations: Invocation[] = [];
  return {
    invocations,
    async dispatch(inv) {
      invocations.push(inv);
      return answer(inv);
    },
    async suggestNodes(prefix) {
      return [
        { name: 'alice', nodeId: 'n-1', status: 'RUNNING' },
        { name: 'albert', nodeId: 'n-2', status: 'PAUSED' },
        { name: 'bob', nodeId: 'n-3', status: 'FAILED' },
      ].filter((n) => n.name.startsWith(prefix));
    },
    prepareMessage: async (m) => m,
  };
}

/** A promise the test resolves when it wants: a service that answers only when told. */
export function gate<T = void>(): { promise: Promise<T>; open(v: T): void } {
  let open!: (v: T) => void;
  const promise = new Promise<T>((r) => (open = r));
  return { promise, open };
}
