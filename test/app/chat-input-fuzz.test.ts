/**
 * Bad input from chat: any text typed after /rln either parses or is a UserError with a
 * message; and whatever a user or a node name contains, nothing unescaped reaches a Slack
 * or Discord message (no mentions, no markup, no broken out code blocks).
 */
import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { createRegistry, parseCommandLine } from '../../src/engine/index.js';
import { UserError, type Message } from '../../src/vocabulary/index.js';
import { allCommands } from '../../commands/index.js';
import { toBlockKit } from '../../src/chat/slack/index.js';
import { toDiscordPayload } from '../../src/chat/discord/index.js';

const registry = createRegistry(allCommands);

const INJECTIONS = [
  '<!channel>',
  '<!here>',
  '<!everyone>',
  '<@U0123ABC>',
  '<#C0123|general>',
  '@everyone',
  '@here',
  '<@123456789012345678>',
  '<@&42>',
  '*bold*',
  '_it_',
  '~strike~',
  '`code`',
  '```block```',
  '> quote',
  '[link](https://evil.example)',
  '<https://evil.example|click>',
  '||spoiler||',
];

const text = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 300 }),
  fc.constantFrom(...INJECTIONS),
  fc
    .array(
      fc.constantFrom(
        'node',
        'list',
        'stop',
        'alice',
        'x=1',
        '"a b"',
        "'",
        '"',
        '`',
        '=',
        '==',
        'key=',
        '=v',
        '“smart”',
        '\u0000',
        '\n',
        '🟢',
      ),
      { maxLength: 12 },
    )
    .map((a) => a.join(' ')),
);

describe('Slack argument parsing under random input', () => {
  it('returns a command or throws a UserError with a message — nothing else', () => {
    fc.assert(
      fc.property(text, (t) => {
        try {
          const parsed = parseCommandLine(t, registry);
          expect(registry.get(parsed.path)).toBeDefined();
        } catch (err) {
          expect(err).toBeInstanceOf(UserError);
          expect((err as UserError).message.length).toBeGreaterThan(0);
        }
      }),
      { numRuns: 2_000 },
    );
  });

  it('parses a well-formed line whatever the quoted value holds', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 60 }).filter((s) => !/["\r\n]/.test(s)),
        (v) => {
          const parsed = parseCommandLine(`node settings alice webhook="${v}"`, registry);
          expect(parsed.path).toBe('node settings');
          expect(parsed.args.webhook ?? '').toBe(v);
        },
      ),
      { numRuns: 300 },
    );
  });
});

function messageWith(s: string): Message {
  return {
    header: `Node ${s}`,
    tone: 'danger',
    summary: s,
    blocks: [
      { type: 'text', text: [s, { bold: s }, { code: s }] },
      { type: 'fields', fields: [{ label: s || 'x', value: s || 'x', inline: true }] },
      { type: 'table', table: { columns: [{ header: 'Node' }], rows: [[s]] } },
      { type: 'context', text: s },
    ],
  };
}

/** Every text Slack formats: mrkdwn objects and the top-level text/fallback (plain_text is shown as is). */
function slackFormattedTexts(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) node.forEach((n) => slackFormattedTexts(n, out));
  else if (node && typeof node === 'object') {
    const o = node as Record<string, unknown>;
    if (o.type === 'mrkdwn' && typeof o.text === 'string') out.push(o.text);
    for (const [k, v] of Object.entries(o)) {
      if ((k === 'text' || k === 'fallback') && typeof v === 'string' && o.type !== 'plain_text' && o.type !== 'mrkdwn') out.push(v);
      else slackFormattedTexts(v, out);
    }
  }
  return out;
}

/** Discord markdown outside code spans and blocks (where nothing renders), in every field that renders it. */
function discordRenderedMarkdown(payload: { embeds: Array<Record<string, any>>; content?: string }): string {
  const parts: string[] = [payload.content ?? ''];
  for (const e of payload.embeds) {
    parts.push(e.title ?? '', e.description ?? '');
    for (const f of e.fields ?? []) parts.push(f.name ?? '', f.value ?? '');
  }
  return parts
    .join('\n')
    .replace(/```[\s\S]*?```/g, '')
    .replace(/`[^`]*`/g, '');
}

describe('rendering user text', () => {
  it('Slack: no special mention or link syntax survives from user text', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.constantFrom(...INJECTIONS),
          fc.string({ unit: 'grapheme', maxLength: 80 }).map((s) => `${s}<!channel>`),
        ),
        (s) => {
          const out = slackFormattedTexts(toBlockKit(messageWith(s))).join('\n');
          expect(out).not.toMatch(/<!(channel|here|everyone)/);
          expect(out).not.toMatch(/<@U0123ABC>|<#C0123/);
          expect(out).not.toMatch(/<https:\/\/evil\.example\|/);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('Discord: mentions are never parsed and @everyone / @here cannot ping', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.constantFrom(...INJECTIONS),
          fc.string({ unit: 'grapheme', maxLength: 80 }).map((s) => `${s} @everyone`),
        ),
        (s) => {
          const payload = toDiscordPayload(messageWith(s));
          expect(payload.allowed_mentions).toEqual({ parse: [] });
          const out = discordRenderedMarkdown(payload);
          expect(out).not.toMatch(/(^|[^\u200b\\])@(everyone|here)/);
          expect(out).not.toMatch(/\]\(https:\/\/evil\.example\)/);
        },
      ),
      { numRuns: 500 },
    );
  });
});
