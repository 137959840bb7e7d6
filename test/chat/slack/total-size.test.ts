import { describe, expect, it } from 'vitest';
import type { Message } from '../../../src/vocabulary/message.js';
import { allBlocks, textLength, toBlockKit } from '../../../src/chat/slack/render.js';
import { SLACK_MAX_MESSAGE_TEXT, SLACK_MAX_SECTION_TEXT } from '../../../src/chat/slack/limits.js';

/** Text blocks of plain letters (nothing to escape) adding up to `total` characters, each within a section's limit. */
function lettersMessage(total: number, extra: Partial<Message> = {}): Message {
  const blocks: Message['blocks'] = [];
  for (let left = total; left > 0; left -= 2_500) blocks.push({ type: 'text', text: 'a'.repeat(Math.min(2_500, left)) });
  return { blocks, ...extra };
}

describe('Slack’s total message size', () => {
  it('keeps a message whose blocks hold exactly the safe total whole', () => {
    const out = toBlockKit(lettersMessage(SLACK_MAX_MESSAGE_TEXT));
    expect(textLength(allBlocks(out))).toBe(SLACK_MAX_MESSAGE_TEXT);
    expect(JSON.stringify(out)).not.toContain('not shown');
  });

  it('summarises a message one character over the safe total, with a visible note, and stays within it', () => {
    const out = toBlockKit(lettersMessage(SLACK_MAX_MESSAGE_TEXT + 1));
    expect(textLength(allBlocks(out))).toBeLessThanOrEqual(SLACK_MAX_MESSAGE_TEXT);
    expect(JSON.stringify(out)).toMatch(/\d+ more blocks? not shown: the message is too long for Slack/);
  });

  it('keeps a 30,000-character answer with header, buttons and tone under the total, every block within its own limit', () => {
    const out = toBlockKit(
      lettersMessage(30_000, { header: 'Transfers', tone: 'info', buttons: [{ id: 'b_1', label: 'Refresh', command: 'asset refresh' }] }),
    );
    const blocks = allBlocks(out);
    expect(textLength(blocks)).toBeLessThanOrEqual(SLACK_MAX_MESSAGE_TEXT);
    expect(blocks.some((b) => b.type === 'actions')).toBe(true);
    expect(blocks[0]).toMatchObject({ type: 'header' });
    for (const b of blocks)
      if (b.type === 'section') expect((b as { text: { text: string } }).text.text.length).toBeLessThanOrEqual(SLACK_MAX_SECTION_TEXT);
    expect(JSON.stringify(out)).toMatch(/\d+ more blocks not shown/);
  });
});
