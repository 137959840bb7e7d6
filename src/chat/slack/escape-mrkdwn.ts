/**
 * Escaping for Slack mrkdwn. User data (node names, aliases, error messages) must render
 * literally: `&<>` become entities (so `<!channel>`, `<@U123>` and links cannot be injected),
 * and mrkdwn control characters that could format get a zero-width space on each side so
 * `*x*`, `_x_`, `~x~` and `` `x` `` do not turn into formatting.
 */
const ZWSP = '\u200b';

/** Escapes `&`, `<`, `>` only: for text inside code spans and code blocks, where mrkdwn is off. */
export function escapeEntities(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

const WORD = /[\p{L}\p{N}]/u;
const isWord = (ch: string | undefined) => ch !== undefined && WORD.test(ch);

/**
 * Escapes a plain span for mrkdwn: entities plus neutralised `* _ ~ \``. Slack only formats with
 * `*`, `_` and `~` at a word boundary, so one between two letters or digits (`IN_PROGRESS`,
 * `my_node`) is left alone: names copy and paste back into a command unchanged.
 */
export function escapeMrkdwn(text: string): string {
  return escapeEntities(text).replace(/[*_~`]/g, (c, i: number, s: string) =>
    c !== '`' && isWord(s[i - 1]) && isWord(s[i + 1]) ? c : ZWSP + c + ZWSP,
  );
}

/** Inside a code span or block: entities, and backticks that could close the block. */
export function escapeCode(text: string): string {
  return escapeEntities(text).replace(/`/g, '`' + ZWSP);
}

/**
 * Inside an inline code span: a backtick there ends the span whatever follows it (a zero-width
 * space does not stop it), and the rest would be formatted as mrkdwn, so backticks become `ˋ`.
 */
export function escapeInlineCode(text: string): string {
  return escapeEntities(text).replace(/`/g, 'ˋ');
}
