/**
 * Autocomplete over HTTP interactions, around a scripted dispatcher: what Discord would refuse is
 * never sent (a value over 100 characters makes it drop the whole list), and a failing look-up
 * still answers with a type 8.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { silentLogger } from '../../../src/log.js';
import { createRegistry } from '../../../src/engine/index.js';
import { defineCommand, type Dispatcher } from '../../../src/engine/types.js';
import { buildCommandIndexAndData } from '../../../src/chat/discord/build-command-data.js';
import { createDiscordRest } from '../../../src/chat/discord/create-discord-rest.js';
import { discordInteractionRoutes } from '../../../src/chat/discord/http-interactions.js';
import { autocompleteInteraction, createInteractionSigner } from '../../fakes/discord/index.js';

const APP = '900000000000000001';
const registry = createRegistry([
  defineCommand({
    path: 'node info',
    summary: 'Show a node',
    example: '/rln node info alice',
    args: z.object({ node: z.string().describe('Node name or id') }),
    role: 'read',
    confirm: 'none',
    mutates: false,
    handler: async () => ({ blocks: [] }),
  }),
]);

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

async function autocomplete(suggestNodes: Dispatcher['suggestNodes'], typed: string) {
  const signer = createInteractionSigner();
  const dispatcher: Dispatcher = {
    dispatch: async () => ({ kind: 'message', visibility: 'private', message: { blocks: [] } }),
    suggestNodes,
    prepareMessage: async (m) => m,
  };
  const { index } = buildCommandIndexAndData(registry);
  app = Fastify();
  await app.register(
    discordInteractionRoutes({
      publicKeyHex: signer.publicKeyHex,
      rest: createDiscordRest({ apiUrl: 'http://127.0.0.1:9/api' }),
      index: () => index,
      ctx: { dispatcher, logger: silentLogger, deferAfterMs: 1_000 },
      logger: silentLogger,
    }),
  );
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  const raw = JSON.stringify(autocompleteInteraction(APP, { userId: '100000000000000009' }, 'node', 'info', 'node', typed));
  const res = await fetch(`${url}/discord/interactions`, { method: 'POST', headers: signer.headers(raw), body: raw });
  expect(res.status).toBe(200);
  return (await res.json()) as { type: number; data: { choices: Array<{ name: string; value: string }> } };
}

describe('Discord autocomplete', () => {
  it('leaves out a node name longer than a choice value may be, and cuts only the shown name', async () => {
    const long = 'n'.repeat(101);
    const fits = 'm'.repeat(100);
    const a = await autocomplete(
      async () => [
        { name: long, nodeId: 'n-1', status: 'RUNNING' },
        { name: fits, nodeId: 'n-2', status: 'RUNNING' },
        { name: 'alice', nodeId: 'n-3', status: 'PAUSED' },
      ],
      'm',
    );
    expect(a.type).toBe(8);
    expect(a.data.choices.map((c) => c.value)).toEqual([fits, 'alice']);
    expect(a.data.choices[0].name.length).toBeLessThanOrEqual(100);
    expect(a.data.choices[0].name.endsWith('…')).toBe(true);
  });

  it('answers with no choices (type 8) when the look-up throws', async () => {
    const a = await autocomplete(() => {
      throw new Error('boom');
    }, 'al');
    expect(a).toEqual({ type: 8, data: { choices: [] } });
  });
});
