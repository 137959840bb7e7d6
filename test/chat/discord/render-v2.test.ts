import { describe, expect, it } from 'vitest';
import { msg, type Button, type Message } from '../../../src/vocabulary/index.js';
import { toDiscordV2Payload, v2TextLength } from '../../../src/chat/discord/render-v2.js';
import { isV2Payload, toDiscordMessage } from '../../../src/chat/discord/to-discord-message.js';
import { incidentMessage } from '../../../src/notify/render-notifications.js';
import { dashboardMessage } from '../../../commands/status.js';
import { DISCORD_COLOUR_DANGER } from '../../../src/chat/discord/render.js';
import { messagePayloadProblems } from '../../fakes/discord/message-payload.js';
import { componentsOf } from '../../support/discord-e2e.js';
import { expectGolden } from '../../support/golden.js';
import { messageProblems } from './check-limits.js';

const withIds = (m: Message): Message => ({ ...m, buttons: m.buttons?.map((b, i) => ({ ...b, id: `b_test${i}` })) });

const incident = withIds(
  incidentMessage(
    {
      id: 7,
      node_id: 'node-alice0001',
      node_name: 'alice',
      state: 'open',
      last_status: 'FAILED',
      opened_at: Date.UTC(2026, 10, 27, 3, 12),
      acked_by: null,
      acked_at: null,
      resolved_at: null,
      escalated_at: null,
      escalated_to: null,
      changes: 2,
    } as never,
    Date.UTC(2026, 10, 27, 3, 40),
  ),
);

const png = Buffer.from('89504e470d0a1a0a', 'hex').toString('base64');
const report: Message = {
  header: 'Balance report · alice',
  purpose: 'report',
  tone: 'info',
  blocks: [
    msg.table({ columns: [{ header: 'Balance' }, { header: 'Amount', align: 'right' }], rows: [['BTC on-chain', '120,000 sats']] }),
    msg.divider(),
    msg.context('Change since the last report: +2,000 sats'),
  ],
  files: [
    { name: 'balance alice.png', mime: 'image/png', base64: png, title: 'Balance, 7 days', alt: 'BTC balance of alice over 7 days' },
    { name: 'balance-alice.csv', mime: 'text/csv', base64: '', title: 'CSV', alt: 'the figures' },
  ],
};

describe('Discord Components V2 cards', () => {
  it('shows an incident as one card: the tone as its colour bar, the facts, and its buttons inside it', () => {
    const p = toDiscordMessage(incident);
    expect(isV2Payload(p)).toBe(true);
    expect(p).not.toHaveProperty('content');
    expect(p).not.toHaveProperty('embeds');
    expect(p.components).toHaveLength(1);
    const card = p.components[0] as any;
    expect(card.type).toBe(17);
    expect(card.accent_color).toBe(DISCORD_COLOUR_DANGER);
    expect(card.components[0]).toEqual({ type: 10, content: '### Incident \\#7: alice is FAILED' });
    expect(card.components.at(-1).type).toBe(1);
    expect(card.components.at(-1).components.map((b: any) => b.label)).toEqual(['Restart', 'Logs', 'Acknowledge']);
    expect(messageProblems(p)).toEqual([]);
    expectGolden('discord/incident-v2', p);
  });

  it('shows a report with its chart inside the card when the files go with it, and names them as attached', () => {
    const p = toDiscordMessage(report, { files: true });
    expect(isV2Payload(p)).toBe(true);
    const all = componentsOf(p);
    const gallery = all.find((c) => c.type === 12);
    expect(gallery.items).toEqual([{ media: { url: 'attachment://balance_alice.png' }, description: 'BTC balance of alice over 7 days' }]);
    expect(all.find((c) => c.type === 13).file.url).toBe('attachment://balance-alice.csv');
    expect(all.some((c) => c.type === 14)).toBe(true);
    // Named as the poster attaches them; a name the card does not have is refused, as Discord would.
    expect(messageProblems(p, ['balance_alice.png', 'balance-alice.csv'])).toEqual([]);
    expect(messageProblems(p, ['balance alice.png', 'balance-alice.csv'])).toEqual([
      'components[0].components[4].items[0]: attachment://balance_alice.png names no attached file',
    ]);
    expectGolden('discord/report-v2', p);
    // Without its files (an interaction's answer, whose files follow it) the card names none.
    expect(componentsOf(toDiscordMessage(report)).some((c) => c.type === 12 || c.type === 13)).toBe(false);
  });

  it('keeps the dashboard with all its buttons within 40 components', () => {
    const nodes = Array.from({ length: 20 }, (_, i) => ({
      node: { nodeId: `n${i}`, name: `node${String(i).padStart(2, '0')}`, status: 'RUNNING' },
      lock: 'unlocked',
      onchainSat: 1000n * BigInt(i),
      lnLocalSat: 10n,
      lnRemoteSat: 20n,
      channelsUsable: 1,
      channelsTotal: 2,
    })) as never;
    const m = withIds(dashboardMessage(nodes, { incidents: [], watches: [], now: new Date(Date.UTC(2026, 10, 27)), page: 2 }));
    expect(m.buttons).toHaveLength(18);
    const p = toDiscordMessage(m);
    expect(isV2Payload(p)).toBe(true);
    expect(messageProblems(p)).toEqual([]);
    expect(componentsOf(p).filter((c) => c.type === 2)).toHaveLength(18);
  });

  it('keeps an ordinary answer an embed, and falls back to an embed where the card cannot hold the message', () => {
    const plain = toDiscordMessage({ header: 'Peers (2) · alice', blocks: [msg.text('two peers')] });
    expect(isV2Payload(plain)).toBe(false);
    expect(plain).toHaveProperty('embeds');

    const buttons: Button[] = Array.from({ length: 25 }, (_, i) => ({ label: `b${i}`, command: 'node info', id: `b_x${i}` }));
    const crowded: Message = {
      ...report,
      files: Array.from({ length: 6 }, (_, i) => ({ name: `f${i}.txt`, mime: 'text/plain', base64: '', title: 't', alt: 'a' })),
      buttons,
    };
    expect(() => toDiscordV2Payload(crowded, { files: true })).toThrow(/container holds 10/);
    const fallback = toDiscordMessage(crowded, { files: true });
    expect(isV2Payload(fallback)).toBe(false);
    expect(messageProblems(fallback)).toEqual([]);
  });

  it('cuts a body longer than 4000 characters visibly, and an edit of a card stays a card and clears content and embeds', () => {
    const long: Message = {
      header: 'Channel report · all nodes',
      purpose: 'report',
      blocks: [msg.text('x'.repeat(3000)), msg.code('y'.repeat(3000)), msg.context('the end')],
    };
    const p = toDiscordMessage(long);
    expect(isV2Payload(p) && v2TextLength(p)).toBeLessThanOrEqual(4000);
    expect(JSON.stringify(p)).toContain('1 more part not shown');
    expect(messageProblems(p)).toEqual([]);

    const edit = toDiscordMessage({ header: 'Nodes (3)', blocks: [msg.text('a list')] }, { v2: 'always', edit: true });
    expect(isV2Payload(edit)).toBe(true);
    expect(edit).toMatchObject({ content: null, embeds: null });
    expect(messagePayloadProblems(edit, { files: [], editedFlags: 1 << 15 })).toEqual([]);
  });
});

describe("the fake Discord's check of a message payload", () => {
  const card = (children: unknown[]) => ({ flags: 1 << 15, components: [{ type: 17, components: children }] });
  const text = { type: 10, content: 'hello' };

  it('refuses content or embeds with the V2 flag, and V2 components without it', () => {
    expect(messagePayloadProblems({ ...card([text]), content: 'hi' }, { files: [] })).toEqual([
      'content: not allowed with IS_COMPONENTS_V2',
    ]);
    expect(messagePayloadProblems({ ...card([text]), embeds: [{ title: 't' }] }, { files: [] })).toEqual([
      'embeds: not allowed with IS_COMPONENTS_V2',
    ]);
    expect(messagePayloadProblems({ components: [{ type: 17, components: [text] }] }, { files: [] })).toEqual([
      'components[0]: type 17 needs the IS_COMPONENTS_V2 flag',
    ]);
  });

  it('refuses more than 40 components, more than 10 in a container, over 4000 characters, and a flag taken away', () => {
    const row = (n: number) => ({
      type: 1,
      components: Array.from({ length: 5 }, (_, i) => ({ type: 2, style: 2, label: 'x', custom_id: `c${n}-${i}` })),
    });
    expect(messagePayloadProblems(card([text, ...Array.from({ length: 7 }, (_, n) => row(n))]), { files: [] })).toEqual([
      'components: 44 in all, over 40',
    ]);
    expect(messagePayloadProblems(card(Array.from({ length: 11 }, () => text)), { files: [] })).toEqual([
      'components[0]: a container holds 1-10 components',
    ]);
    expect(messagePayloadProblems(card([{ type: 10, content: 'z'.repeat(4001) }]), { files: [] })).toEqual([
      'components: 4001 characters of text displays, over 4000',
    ]);
    expect(messagePayloadProblems({ embeds: [{ title: 'x' }], flags: 0 }, { files: [], editedFlags: 1 << 15 })).toEqual([
      'flags: a message with IS_COMPONENTS_V2 cannot lose it',
      'embeds: not allowed with IS_COMPONENTS_V2',
    ]);
  });
});
