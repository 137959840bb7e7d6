/**
 * Slack mrkdwn for the renderer: escaped inline spans, cuts that never split an entity, a link
 * or a grapheme, and the section and context blocks that carry text.
 */
import type { Inline } from '../../vocabulary/index.js';
import { cutText, graphemePrefix } from '../../vocabulary/index.js';
import { escapeEntities, escapeInlineCode, escapeMrkdwn } from './escape-mrkdwn.js';
import { SLACK_MAX_CONTEXT_TEXT } from './limits.js';

export type SlackBlock = Record<string, unknown>;

/** Cuts `text` to `max` characters, ending with an ellipsis when it was cut. */
export function truncate(text: string, max: number): string {
  return cutText(text, max);
}

/** Cuts already-escaped mrkdwn, never inside an entity or a link, with a visible note. */
export function truncateMrkdwn(text: string, max: number): string {
  if (text.length <= max) return text;
  const note = (n: number) => `… (${n} more characters cut)`;
  const cut = safeCut(text, max - note(text.length).length);
  return text.slice(0, cut) + note(text.length - cut);
}

/** Moves a cut position back so it does not split `&amp;`, `<url|label>` or a grapheme (an emoji). */
export function safeCut(text: string, pos: number): number {
  let p = graphemePrefix(text, Math.max(0, pos)).length;
  const amp = text.lastIndexOf('&', p - 1);
  if (amp >= 0 && amp > p - 6 && !text.slice(amp, p).includes(';')) p = amp;
  const lt = text.lastIndexOf('<', p - 1);
  if (lt >= 0 && !text.slice(lt, p).includes('>')) p = lt;
  return p;
}

function isSafeUrl(url: string): boolean {
  return /^(https?:\/\/|mailto:)[^\s<>|]+$/i.test(url);
}

/** Inline spans -> mrkdwn, every span escaped. */
export function inlineToMrkdwn(text: string | Inline[]): string {
  if (typeof text === 'string') return escapeMrkdwn(text);
  return text
    .map((s) => {
      if (typeof s === 'string') return escapeMrkdwn(s);
      if ('bold' in s) return s.bold ? `*${escapeMrkdwn(s.bold)}*` : '';
      if ('italic' in s) return s.italic ? `_${escapeMrkdwn(s.italic)}_` : '';
      if ('code' in s) return s.code ? '`' + escapeInlineCode(s.code).replace(/\n/g, ' ') + '`' : '';
      const label = escapeMrkdwn(s.link.label).replace(/\|/g, '∣');
      return isSafeUrl(s.link.url) ? `<${escapeEntities(s.link.url)}|${label}>` : `${label} (${escapeMrkdwn(s.link.url)})`;
    })
    .join('');
}

export const section = (text: string): SlackBlock => ({ type: 'section', text: { type: 'mrkdwn', text } });
export const contextBlock = (text: string): SlackBlock => ({
  type: 'context',
  elements: [{ type: 'mrkdwn', text: truncateMrkdwn(text, SLACK_MAX_CONTEXT_TEXT) }],
});

/** Splits mrkdwn into pieces of at most `max`, at line breaks where possible. */
export function splitMrkdwn(text: string, max: number): string[] {
  const out: string[] = [];
  let rest = text;
  while (rest.length > max) {
    let cut = rest.lastIndexOf('\n', max);
    if (cut < max / 2) cut = safeCut(rest, max);
    if (cut <= 0) cut = graphemePrefix(rest, max).length || max;
    out.push(rest.slice(0, cut));
    rest = rest.slice(cut).replace(/^\n/, '');
  }
  if (rest.length || out.length === 0) out.push(rest);
  return out;
}
