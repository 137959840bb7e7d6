/**
 * boundCalls over a client whose endpoint methods are made on first use by a getter that calls
 * back into the client (as the node API client's are): the wrapper takes one turn per call, so
 * as many calls as the bound at once all finish, and a fifth waits for a turn.
 */
import { describe, expect, it } from 'vitest';
import { boundCalls } from '../../src/activity/bounded-calls.js';

const INNER = Symbol('inner');

function makeClient(gate: Promise<void>, started: string[]) {
  const methods = Object.defineProperties(
    {},
    Object.fromEntries(
      ['a', 'b', 'c', 'd', 'e'].map((name) => [
        name,
        {
          get(this: { [INNER]: (n: string) => Promise<string> }) {
            return () => this[INNER](name);
          },
        },
      ]),
    ),
  );
  const client = Object.create(methods) as Record<string, () => Promise<string>> & { [INNER]: (n: string) => Promise<string> };
  client[INNER] = async (name: string) => {
    started.push(name);
    await gate;
    return name;
  };
  return client;
}

describe('boundCalls', () => {
  it('takes one turn per call, even when the method is made by a getter that calls back into the client', async () => {
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    const started: string[] = [];
    const bounded = boundCalls(makeClient(gate, started), 4);
    const calls = ['a', 'b', 'c', 'd', 'e'].map((n) => bounded[n]());
    // Let every call that has a turn reach the client.
    for (let i = 0; i < 10; i++) await Promise.resolve();
    expect(started).toEqual(['a', 'b', 'c', 'd']);
    open();
    expect(await Promise.all(calls)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(started).toEqual(['a', 'b', 'c', 'd', 'e']);
  });
});
