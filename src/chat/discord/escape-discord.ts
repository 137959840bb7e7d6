/**
 * Escapes user text for Discord markdown: every markdown character is backslash-escaped, and
 * mentions (`@everyone`, `@here`, `<@…>`, `<@&…>`, `<#…>`) are broken with a zero-width space so
 * they neither render nor ping (allowed_mentions {parse: []} is sent as well).
 */
import type { Inline } from '../../vocabulary/index.js';

const ZWSP = '\u200b';

export function escapeDiscord(text: string): string {
  return text
    .replace(/[\\*_~`|>#\-[\]()]/g, (c) => `\\${c}`)
    .replace(/@(everyone|here)/gi, `@${ZWSP}$1`)
    .replace(/<(?=[@#:]|a:|t:)/g, `<${ZWSP}`);
}

/** For plain-text places (embed footers): no markdown there, so only mentions are broken. */
export function neutraliseMentions(text: string): string {
  return text.replace(/@(everyone|here)/gi, `@${ZWSP}$1`).replace(/<(?=[@#:]|a:|t:)/g, `<${ZWSP}`);
}

/** Text for inside a code span or block: backticks cannot be escaped there, so they are replaced. */
export function escapeCode(text: string): string {
  return text.replace(/`/g, 'ˋ').replace(/@(everyone|here)/gi, `@${ZWSP}$1`);
}

function safeUrl(url: string): string | undefined {
  try {
    const u = new URL(url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return undefined;
    return u.toString().replace(/\)/g, '%29').replace(/ /g, '%20');
  } catch {
    return undefined;
  }
}

/** Inline spans to Discord markdown, every user string escaped. */
export function inlineToDiscord(text: string | Inline[]): string {
  if (typeof text === 'string') return escapeDiscord(text);
  return text
    .map((s) => {
      if (typeof s === 'string') return escapeDiscord(s);
      if ('bold' in s) return `**${escapeDiscord(s.bold)}**`;
      if ('code' in s) return `\`${escapeCode(s.code) || ' '}\``;
      if ('italic' in s) return `*${escapeDiscord(s.italic)}*`;
      const url = safeUrl(s.link.url);
      return url ? `[${escapeDiscord(s.link.label)}](${url})` : `${escapeDiscord(s.link.label)} (${escapeDiscord(s.link.url)})`;
    })
    .join('');
}
