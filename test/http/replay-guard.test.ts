import { describe, expect, it } from 'vitest';
import { createReplayGuard } from '../../src/http/create-replay-guard.js';

/** Shared by Slack's HTTP mode and Discord's HTTP interactions. */
describe('the replay guard of signed requests', () => {
  it('refuses a repeat inside the window and forgets it once a timestamp that old would be refused anyway', async () => {
    const g = createReplayGuard({ windowMs: 1_000 });
    expect(await g.firstTime('sig-a', 0)).toBe(true);
    expect(await g.firstTime('sig-a', 1_500)).toBe(false);
    expect(await g.firstTime('sig-b', 1_500)).toBe(true);
    expect(await g.firstTime('sig-a', 2_001)).toBe(true);
  });

  it('stays bounded, forgetting the oldest first', async () => {
    const g = createReplayGuard({ windowMs: 60_000, maxEntries: 3 });
    for (const k of ['a', 'b', 'c', 'd']) expect(await g.firstTime(k, 10)).toBe(true);
    expect(g.size).toBeLessThanOrEqual(3);
    expect(await g.firstTime('d', 11)).toBe(false);
    expect(await g.firstTime('a', 11)).toBe(true);
  });
});
