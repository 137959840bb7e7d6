import { describe, expect, it, vi } from 'vitest';
import type { Message } from '../../src/vocabulary/message.js';
import { toBlockKit, truncate } from '../../src/chat/slack/render.js';
import { toDiscordPayload } from '../../src/chat/discord/render.js';
import { clip, clipWords } from '../../src/chat/discord/limits.js';
import { cutText, graphemePrefix } from '../../src/vocabulary/cut-text.js';

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const rockets = (n: number) => '🚀'.repeat(n);

/** Every string in a payload (JSON.stringify would escape a lone surrogate, hiding it). */
function stringsOf(v: unknown, out: string[] = []): string[] {
  if (typeof v === 'string') out.push(v);
  else if (v && typeof v === 'object') for (const x of Object.values(v)) stringsOf(x, out);
  return out;
}

describe('cutting text to a platform limit', () => {
  it('never splits an emoji into a lone surrogate, in the shared helper', () => {
    for (let max = 0; max < 20; max++) {
      expect(graphemePrefix(rockets(10), max)).not.toMatch(LONE_SURROGATE);
      expect(cutText(rockets(10), max)).not.toMatch(LONE_SURROGATE);
      expect(cutText(rockets(10), max).length).toBeLessThanOrEqual(Math.max(max, 1));
    }
  });

  it('cuts where a full walk of the text by Intl.Segmenter would, for text mixing ASCII with emoji, accents, CRLF, flags, Hangul and ZWJ sequences', () => {
    // graphemePrefix looks only near the cut when it can; this is the walk from the start it stands for.
    const reference = (text: string, max: number): string => {
      if (text.length <= max) return text;
      let end = 0;
      for (const { index, segment } of new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(text)) {
        if (index + segment.length > max) break;
        end = index + segment.length;
      }
      return text.slice(0, end);
    };
    const pieces = [
      'a',
      'Z',
      ' ',
      '.',
      '\n',
      '\r\n',
      '\r',
      'e\u0301',
      '\u0301',
      '🚀',
      '👨‍👩‍👧‍👦',
      '🇫🇷',
      '🇩🇪🇫🇷',
      '\u200d',
      '한',
      '\u1100\u1161\u11a8',
      'ก\u0e33',
      'क्ष',
      '\ufe0f',
      '\t',
      '日本',
    ];
    // A fixed linear congruential sequence: the same strings on every run.
    let seed = 18;
    const next = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    let compared = 0;
    for (let i = 0; i < 300; i++) {
      const text = Array.from({ length: 1 + next(40) }, () => pieces[next(pieces.length)]).join('');
      for (let max = 0; max <= text.length + 1; max++) {
        expect(graphemePrefix(text, max), JSON.stringify({ text, max })).toBe(reference(text, max));
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(5_000);
  });

  it('segments only near the cut: none of a long ASCII text, and a long text with an emoji at the cut from the last plain pair before it', () => {
    // Observed, not replaced: the spy calls through to ICU.
    const spy = vi.spyOn(Intl.Segmenter.prototype, 'segment');
    const segmented = () => spy.mock.calls.map(([input]) => input.length);
    try {
      const ascii = 'node-1 RUNNING → FAILED, 3 changes\n'.replace('→', '>').repeat(3_000);
      expect(graphemePrefix(ascii, 3_000)).toBe(ascii.slice(0, 3_000));
      expect(segmented()).toEqual([]);
      const withEmoji = `${'x'.repeat(2_998)}🚀${'y'.repeat(100_000)}`;
      expect(graphemePrefix(withEmoji, 2_999)).toBe('x'.repeat(2_998));
      // Segmented from the boundary before the rocket (2,997 | 2,998), not from the start.
      expect(segmented()).toEqual([withEmoji.length - 2_997]);
    } finally {
      spy.mockRestore();
    }
  });

  it('keeps a flag or a family emoji whole rather than cutting between its code points', () => {
    const family = '👨‍👩‍👧‍👦';
    expect(graphemePrefix(`ab${family}`, 5)).toBe('ab');
    expect(graphemePrefix(`ab${family}cd`, 2 + family.length)).toBe(`ab${family}`);
  });

  it('Slack truncate and Discord clip cut an asset named with 80 rockets between emoji', () => {
    for (const max of [9, 10, 79, 80, 149, 150]) {
      expect(truncate(rockets(80), max)).not.toMatch(LONE_SURROGATE);
      expect(clip(rockets(80), max)).not.toMatch(LONE_SURROGATE);
      expect(clipWords(rockets(80), max)).not.toMatch(LONE_SURROGATE);
    }
  });

  it('a Slack message whose header and table cells are emoji holds no lone surrogate', () => {
    const m: Message = {
      header: rockets(80),
      blocks: [
        { type: 'table', table: { columns: [{ header: 'Asset' }, { header: 'Amount' }], rows: [[rockets(80), '1']] } },
        { type: 'fields', fields: [{ label: 'Name', value: rockets(2000) }] },
      ],
      buttons: [{ id: 'b_1', label: rockets(80), command: 'asset list' }],
    };
    const strings = stringsOf(toBlockKit(m));
    for (const s of strings) expect(s).not.toMatch(LONE_SURROGATE);
    expect(strings.some((s) => s.includes('🚀'))).toBe(true);
  });

  it('a Discord message whose title, button and fields are emoji holds no lone surrogate', () => {
    const m: Message = {
      header: rockets(200),
      blocks: [{ type: 'fields', fields: [{ label: rockets(200), value: rockets(600) }] }],
      buttons: [{ id: 'b_1', label: rockets(80), command: 'asset list' }],
    };
    const payload = toDiscordPayload(m);
    for (const s of stringsOf(payload)) expect(s).not.toMatch(LONE_SURROGATE);
    expect(payload.embeds[0].title).toContain('🚀');
  });
});
