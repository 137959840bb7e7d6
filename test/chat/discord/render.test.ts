import { describe, expect, it } from 'vitest';
import type { Message } from '../../../src/vocabulary/message.js';
import type { Dialog } from '../../../src/engine/types.js';
import {
  DISCORD_COLOUR_DANGER,
  DISCORD_COLOUR_SUCCESS,
  DiscordRenderError,
  dialogToModal,
  toDiscordPayload,
} from '../../../src/chat/discord/render.js';
import { DISCORD_MAX_EMBED_DESCRIPTION, DISCORD_MAX_CUSTOM_ID } from '../../../src/chat/discord/limits.js';
import { messageProblems, modalInputs, modalProblems } from './check-limits.js';
import { expectGolden } from '../../support/golden.js';

const nodeInfo: Message = {
  header: 'alice · 🟢 RUNNING',
  tone: 'success',
  blocks: [
    {
      type: 'fields',
      fields: [
        { label: 'Node id', value: [{ code: 'n_123' }], inline: true },
        { label: 'Image', value: 'v0.2.1', inline: true },
        { label: 'Network', value: 'regtest', inline: true },
      ],
    },
    { type: 'text', text: ['Invoke URL: ', { link: { url: 'https://node.example/u1/n_123', label: 'node API' } }] },
    { type: 'progress', label: 'Disk', value: 30, max: 100 },
    { type: 'context', text: 'updated 2026-11-22 10:00 UTC' },
  ],
  buttons: [
    { label: 'Stop', style: 'danger', command: 'node stop', args: { node: 'alice' }, id: 'b_stop1' },
    { label: 'Logs', command: 'node logs', args: { node: 'alice' }, id: 'b_logs1' },
    { label: 'Upgrade', style: 'primary', command: 'node upgrade', args: { node: 'alice' }, id: 'b_up1' },
  ],
};

const hostile: Message = {
  header: 'Node @everyone **x**',
  tone: 'danger',
  blocks: [
    {
      type: 'text',
      text: 'name: @everyone @here <@123456> <@&42> <#77> **bold** _it_ ~~s~~ `c` ||spoiler|| > quote\n# heading\n- item [x](http://evil)',
    },
    { type: 'fields', fields: [{ label: '@here', value: '<@&999> *' }] },
    { type: 'code', text: 'a ``` b @everyone' },
  ],
};

function bigTable(rows: number): Message {
  return {
    header: 'Channels',
    tone: 'info',
    blocks: [
      {
        type: 'table',
        table: {
          columns: [{ header: 'Channel' }, { header: 'Peer' }, { header: 'Capacity', align: 'right' }],
          rows: Array.from({ length: rows }, (_, i) => [`chan-${i}`, `02${'ab'.repeat(20)}${i}`, `${(i + 1) * 1000} sats`]),
          caption: `${rows} channels`,
        },
      },
    ],
  };
}

const destroyDialog: Dialog = {
  id: 'd_abc123def456',
  title: 'Destroy node alice: this cannot be undone, at all',
  intro: 'Type the node name to confirm.',
  submitLabel: 'Destroy',
  fields: [
    {
      name: 'confirm_name',
      label: "Type the node's name to confirm",
      kind: 'text',
      required: true,
      placeholder: 'alice',
      hint: 'This cannot be undone.',
    },
    { name: 'backup', label: 'Back up the node first (recommended: destroying is irreversible)', kind: 'checkbox', initial: 'true' },
    {
      name: 'backup_password',
      label: 'Node password (for the backup)',
      kind: 'secret',
      required: false,
      hint: 'Needed only if you back up first.',
    },
  ],
};

describe('toDiscordPayload', () => {
  it('renders a node status as a coloured embed with inline fields, a footer and buttons', () => {
    const p = toDiscordPayload(nodeInfo);
    expect(messageProblems(p)).toEqual([]);
    expect(p.embeds[0].color).toBe(DISCORD_COLOUR_SUCCESS);
    expect(p.embeds[0].footer?.text).toBe('updated 2026-11-22 10:00 UTC');
    expect(p.components[0].components.map((b) => [b.custom_id, b.style])).toEqual([
      ['b_stop1', 4],
      ['b_logs1', 2],
      ['b_up1', 1],
    ]);
    expectGolden('discord/node-info', p);
  });

  it('escapes markdown and neutralises every mention in user text', () => {
    const p = toDiscordPayload(hostile);
    expect(messageProblems(p)).toEqual([]);
    const e = p.embeds[0];
    expect(e.color).toBe(DISCORD_COLOUR_DANGER);
    const all = JSON.stringify(e);
    expect(all).not.toMatch(/@everyone|@here|<@123456>|<@&42>|<#77>|<@&999>/);
    expect(e.description).toContain('\\*\\*bold\\*\\*');
    expect(e.description).toContain('\\# heading');
    expect(e.description).toContain('\\[x\\]\\(http://evil\\)');
    expect(e.description).not.toContain('```\n a ```');
    expect(p.allowed_mentions).toEqual({ parse: [] });
    expectGolden('discord/hostile-text', p);
  });

  it('truncates a long table visibly within the description limit', () => {
    const p = toDiscordPayload(bigTable(400));
    expect(messageProblems(p)).toEqual([]);
    const d = p.embeds[0].description!;
    expect(d.length).toBeLessThanOrEqual(DISCORD_MAX_EMBED_DESCRIPTION);
    const more = d.match(/… (\d+) more rows/);
    expect(more).not.toBeNull();
    const shown = (d.match(/chan-\d+/g) ?? []).length;
    expect(shown + Number(more![1])).toBe(400);
    expectGolden('discord/table-truncated', p);
  });

  it('keeps a short table whole', () => {
    const p = toDiscordPayload(bigTable(3));
    expect(p.embeds[0].description).not.toContain('more row');
    expect((p.embeds[0].description!.match(/chan-\d+/g) ?? []).length).toBe(3);
  });

  it('folds fields past 25 into a visible note', () => {
    const m: Message = {
      blocks: [{ type: 'fields', fields: Array.from({ length: 30 }, (_, i) => ({ label: `f${i}`, value: 'x'.repeat(2000) })) }],
    };
    const p = toDiscordPayload(m);
    expect(messageProblems(p)).toEqual([]);
    const note = p.embeds[0].fields!.at(-1)!.value.match(/^(\d+) more fields not shown$/);
    expect(note).not.toBeNull();
    expect(p.embeds[0].fields!.length - 1 + Number(note![1])).toBe(30);
    expect(p.embeds[0].fields![0].value.endsWith('…')).toBe(true);
  });

  it('lays out buttons five to a row and refuses more than 25', () => {
    const buttons = (n: number) => Array.from({ length: n }, (_, i) => ({ label: `b${i}`, command: 'node info', id: `b_${i}` }));
    const p = toDiscordPayload({ blocks: [], buttons: buttons(12) });
    expect(p.components.map((r) => r.components.length)).toEqual([5, 5, 2]);
    expect(() => toDiscordPayload({ blocks: [], buttons: buttons(26) })).toThrow(DiscordRenderError);
  });

  it('refuses a button without an id or with an id too long for custom_id', () => {
    expect(() => toDiscordPayload({ blocks: [], buttons: [{ label: 'x', command: 'node info' }] })).toThrow(/prepareMessage/);
    expect(() =>
      toDiscordPayload({ blocks: [], buttons: [{ label: 'x', command: 'node info', id: 'b'.repeat(DISCORD_MAX_CUSTOM_ID + 1) }] }),
    ).toThrow(/custom_id/);
  });
});

describe('dialogToModal', () => {
  it('renders the destroy dialog as a modal of short text inputs within the limits', () => {
    const m = dialogToModal(destroyDialog);
    expect(modalProblems(m)).toEqual([]);
    expect(m.custom_id).toBe('d_abc123def456');
    expect(m.title.length).toBeLessThanOrEqual(45);
    expect(m.title.endsWith('…')).toBe(true);
    const inputs = modalInputs(m);
    expect(inputs.map((i) => i.custom_id)).toEqual(['confirm_name', 'backup', 'backup_password']);
    expect(inputs[1].value).toBe('yes');
    expect((m.components[2] as { label: string }).label.endsWith('(yes/no)')).toBe(true);
    expect(inputs[2].value).toBeUndefined();
    expectGolden('discord/destroy-modal', { type: 9, data: m });
  });

  it('prefills a value only when it fits whole, never a cut one', () => {
    const modal = (initial: string) =>
      dialogToModal({
        id: 'd_1',
        title: 'Settings',
        submitLabel: 'Save',
        fields: [{ name: 'alias', label: 'Alias', kind: 'text', initial }],
      });
    expect(modalInputs(modal('x'.repeat(4000)))[0].value).toHaveLength(4000);
    expect(modalInputs(modal('x'.repeat(4001)))[0].value).toBeUndefined();
  });

  it('asks Discord to refuse a password shorter than the field allows, before it is submitted', () => {
    const m = dialogToModal({
      id: 'd_pw',
      title: 'Init',
      submitLabel: 'Run',
      fields: [
        { name: 'password', label: 'New node password', kind: 'secret', minLength: 8 },
        { name: 'ok', label: 'Ok', kind: 'checkbox', minLength: 8 },
      ],
    });
    expect(modalInputs(m)[0].min_length).toBe(8);
    expect(modalInputs(m)[1].min_length).toBeUndefined();
  });

  it('refuses more than five inputs', () => {
    const fields = Array.from({ length: 6 }, (_, i) => ({ name: `f${i}`, label: 'x', kind: 'text' as const }));
    expect(() => dialogToModal({ ...destroyDialog, fields })).toThrow(DiscordRenderError);
  });
});
