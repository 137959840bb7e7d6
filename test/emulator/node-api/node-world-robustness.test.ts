import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { NodeWorld, ROUTES } from '../../../src/emulator/node-api/index.js';
import { requestSchemaFor, validateResponse } from '../../support/openapi.js';

const odd = [
  undefined,
  null,
  0,
  -1,
  1.5,
  'x',
  '',
  true,
  [],
  {},
  2 ** 60,
  'rgb:abcdefghijklmn',
  `02${'ab'.repeat(32)}`,
  'ab'.repeat(32),
  [1, 2],
  ['Nia'],
  { type: 'Fungible', value: 1 },
  { type: 'Any' },
];

describe('NodeWorld robustness', () => {
  it('answers any body on any endpoint with a schema-valid 200 or an RLN-shaped error, never an unexpected 500', async () => {
    const world = new NodeWorld();
    world.addNode('a', { network: 'regtest' });
    world.addNode('b', { network: 'regtest' });
    await world.seedReadyNode('a', 'password1');
    await world.seedReadyNode('b', 'password1');
    // lock and shutdown would leave the node locked, and every later call would only say LockedNode.
    const endpoints = Object.keys(ROUTES).filter((e) => e !== 'lock' && e !== 'shutdown');
    const fieldsOf = new Map(endpoints.map((e) => [e, Object.keys((requestSchemaFor(e)?.properties as object) ?? {})]));
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...endpoints),
        fc.array(fc.tuple(fc.nat(20), fc.constantFrom(...odd)), { maxLength: 8 }),
        async (endpoint, picks) => {
          const fields = fieldsOf.get(endpoint)!;
          const body: Record<string, unknown> = {};
          for (const [i, v] of picks) if (fields.length) body[fields[i % fields.length]] = v;
          const method = ROUTES[endpoint].method;
          const r = await world.handle('a', method, endpoint, method === 'GET' ? undefined : body);
          if (r.status === 200) {
            expect(validateResponse(endpoint, method, r.body).errors).toBe('');
          } else {
            expect(r.body).toMatchObject({ code: r.status, name: expect.any(String), error: expect.any(String) });
            expect((r.body as { name: string }).name).not.toBe('Unexpected');
          }
        },
      ),
      { numRuns: 600, seed: 42 },
    );
  });
});
