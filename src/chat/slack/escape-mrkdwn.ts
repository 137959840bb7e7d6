/**
 * Escaping for Slack mrkdwn. User data (node names, aliases, error messages) must render
 * literally: `&<>` become entities (so `<!channel>`, `<@U123>` and links cannot be injected),
 * and mrkdwn control characters get a zero-width space on each side so `*x*`, `_x_`, `~x~`
 * and `` `x` `` do not turn into formatting.
 */
const ZWSP = '\u200b';

/** Escapes `&`, `<`, `>` only: for text inside code spans and code blocks, where mrkdwn is off. */
export function escapeEntities(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Escapes a plain span for mrkdwn: entities plus neutralised `* _ ~ \``. */
export function escapeMrkdwn(text: string): string {
  return escapeEntities(text).replace(/[*_~`]/g, (c) => ZWSP + c + ZWSP);
}

/** Inside a code span or block: entities, and backticks that could close the block. */
export function escapeCode(text: string): string {
  return escapeEntities(text).replace(/`/g, '`' + ZWSP);
}
