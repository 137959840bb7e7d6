/**
 * A slash command's text as Slack sends it with `should_escape: true` (manifest.yml): a mention
 * is `<@U123|name>` and a user group `<!subteam^S123|@ops>`, kept as they are for the commands
 * that read them (access grant, policy set limit, policy limits, audit user=); a channel is
 * `<#C123|name>`, read as its id; a link Slack recognised is `<https://…>` or `<https://…|text>`,
 * read as the link; and `&`, `<`, `>` typed by the user arrive as `&amp;`, `&lt;`, `&gt;`.
 */
export function readCommandText(text: string): string {
  return text
    .replace(/<#([A-Z0-9]+)(?:\|[^>]*)?>/g, '$1')
    .replace(/<((?:https?|mailto|rpcs?|tel):[^|>\s]*)(?:\|[^>]*)?>/g, '$1')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}
