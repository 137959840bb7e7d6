/**
 * A list longer than a page pages with buttons on Discord, over the gateway against the fake
 * Discord: Next updates the message in place with the next page, as the clicker, and a click on
 * a Components V2 message keeps it V2 (Discord refuses to turn one back into an embed).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDiscordBot, type DiscordBot } from '../../support/start-discord-bot.js';
import { buttonInteraction, commandInteraction, type FakeDiscord } from '../../fakes/discord/index.js';
import { buttonsOf, gatewayAnswer, textOf } from '../../support/discord-e2e.js';
import { messageProblems } from './check-limits.js';

const READER = { userId: '100000000000000013' };
const V2 = 1 << 15;

let fake: FakeDiscord;
let h: DiscordBot;

beforeAll(async () => {
  h = await startDiscordBot({ admins: ['discord:100000000000000011'] });
  fake = h.fake;
  await fake.identified();
}, 90_000);

afterAll(async () => {
  await h?.close();
});

const nextOf = (data: unknown) => buttonsOf(data).find((b) => /^Page \d+ ›$/.test(b.label));

describe('paging lists on Discord', () => {
  it('updates the list in place with the next page when Next is clicked', async () => {
    const first = await gatewayAnswer(fake, commandInteraction(fake.applicationId, READER, 'node', 'list', { limit: '2' }));
    expect(textOf(first.data)).toContain('showing 1-2 of 3');
    const next = nextOf(first.data)!;
    expect(next).toBeDefined();

    const second = await gatewayAnswer(fake, buttonInteraction(fake.applicationId, READER, next.custom_id));
    expect(second.type).toBe(7);
    expect(textOf(second.data)).toContain('showing 3-3 of 3');
    expect(textOf(second.data)).toContain('carol');
    expect(nextOf(second.data)).toBeUndefined();
    expect(messageProblems(second.data)).toEqual([]);
    expect(fake.rejected).toEqual([]);
  });

  it('keeps a Components V2 message V2 when a click updates it', async () => {
    const first = await gatewayAnswer(fake, commandInteraction(fake.applicationId, READER, 'node', 'list', { limit: '1' }));
    const next = nextOf(first.data)!;
    const click = buttonInteraction(fake.applicationId, READER, next.custom_id, {
      id: '900000000000000777',
      channelId: '900000000000000002',
      flags: V2,
    });
    const second = await gatewayAnswer(fake, click);
    expect(second.type).toBe(7);
    expect(second.data.flags & V2).toBe(V2);
    expect(second.data.embeds ?? []).toEqual([]);
    expect(textOf(second.data)).toContain('showing 2-2 of 3');
    expect(fake.rejected).toEqual([]);
  });
});
