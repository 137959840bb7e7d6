/**
 * A page longer than one chat message holds (issue 26 follow-up): `wallet transactions limit=100` on a
 * node with more transactions than fit one Discord message. The page is cut to what fits, and its Next
 * button goes on from the first row not shown: following the buttons through the dispatcher, every
 * transaction is seen once as Discord shows it, none skipped. Real commands, dispatcher and Discord
 * renderer, against the emulator on loopback.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allCommands } from '../../commands/index.js';
import { createRegistry, type Reply } from '../../src/engine/index.js';
import { toDiscordPayload } from '../../src/chat/discord/render.js';
import type { HostedNode } from '../../src/hosting/index.js';
import { createReadyNode, startEnv, type TestEnv } from '../support/commands.js';
import { testDispatcher } from '../support/dispatcher.js';

const actor = { platform: 'shell' as const, userId: 'local' };
const place = { platform: 'shell' as const, channelId: 'terminal' };

describe('a page cut to fit one message', () => {
  let env: TestEnv;
  let node: HostedNode;
  beforeAll(async () => {
    env = await startEnv();
    node = await createReadyNode(env, 'c1');
    // A transaction each: more rows than one Discord message holds in a page of 100.
    for (let i = 0; i < 80; i++) {
      await env.api(node).createutxos({ num: 1, size: 1_000, fee_rate: 1, up_to: false, skip_sync: true });
      if (i % 10 === 9) env.world.mine(1);
    }
  }, 60_000);
  afterAll(async () => {
    await env?.close();
  });

  it('shows what fits, and Next goes on from the first row not shown, until every row was seen once', async () => {
    const dispatcher = testDispatcher({ registry: createRegistry(allCommands), services: env.services });
    const { transactions } = await env.api(node).listtransactions({ skip_sync: false });
    expect(transactions.length).toBeGreaterThan(80);

    const seen: string[] = [];
    let clicks = 0;
    let reply: Reply = await dispatcher.dispatch({ via: 'typed', actor, place, text: 'wallet transactions c1 limit=100' });
    for (let pages = 0; pages < 10; pages++) {
      if (reply.kind !== 'message') throw new Error(`not a message: ${JSON.stringify(reply)}`);
      const shown = JSON.stringify(toDiscordPayload(reply.message));
      // Discord shows the whole page: nothing of it is cut by the platform.
      expect(shown).not.toMatch(/more rows?/);
      seen.push(...(shown.match(/[0-9a-f]{12}…/g) ?? []));
      const next = reply.message.buttons?.find((b) => /›$/.test(b.label));
      if (!next) break;
      clicks++;
      reply = await dispatcher.dispatch({ via: 'button', actor, place, buttonId: next.id! });
    }
    // 100 rows were asked for a page: they did not fit one message, so the page was cut.
    expect(clicks).toBeGreaterThan(0);
    expect(seen.length).toBe(transactions.length);
    expect(new Set(seen).size).toBe(seen.length);
  }, 60_000);
});
