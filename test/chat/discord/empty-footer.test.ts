import { describe, expect, it } from 'vitest';
import { toDiscordPayload } from '../../../src/chat/discord/render.js';

describe('Discord embed footers', () => {
  it('sends no footer when every context block is empty or blank', () => {
    const p = toDiscordPayload({
      header: 'Hello',
      blocks: [
        { type: 'context', text: '' },
        { type: 'context', text: '   ' },
        { type: 'context', text: [] },
      ],
    });
    expect(p.embeds[0]).not.toHaveProperty('footer');
    expect(p.embeds[0].title).toBe('Hello');
  });

  it('keeps a footer made of the non-empty context blocks', () => {
    const p = toDiscordPayload({
      blocks: [
        { type: 'context', text: '' },
        { type: 'context', text: 'updated 5s ago' },
      ],
    });
    expect(p.embeds[0].footer).toEqual({ text: 'updated 5s ago' });
  });
});
