/**
 * The Block Kit renderer: golden files (paste them into Block Kit Builder), Slack's limits,
 * and escaping of user data.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { msg, type Message } from '../../../src/vocabulary/message.js';
import { statusBadge, statusTone } from '../../../src/vocabulary/format.js';
import { allBlocks, dialogToModal, readModalOrigin, toBlockKit, SlackRenderError } from '../../../src/chat/slack/index.js';
import type { DataTableBlock, TableBlock } from '@slack/types';
import { assertModalLimits, assertSlackLimits } from './assert-slack-limits.js';
import { messageTableProblems, tableBlockProblems } from '../../fakes/slack/table-blocks.js';
import { expectGolden } from '../../support/golden.js';

const examples: Record<string, Message> = {
  status: {
    header: 'alice',
    tone: statusTone('RUNNING'),
    blocks: [
      msg.fields([
        { label: 'Status', value: statusBadge('RUNNING'), inline: true },
        { label: 'Network', value: 'regtest', inline: true },
        { label: 'Image', value: [{ code: 'v0.2.1' }], inline: true },
        { label: 'Node id', value: [{ code: 'n-7f3a9c' }], inline: true },
      ]),
      msg.progress('Sync', 812, 1000),
      msg.context(['Invoke URL: ', { link: { url: 'https://nodes.example.com/u1/n-7f3a9c', label: 'n-7f3a9c' } }]),
    ],
  },
  table: {
    header: 'Channels of alice',
    blocks: [
      msg.table({
        columns: [
          { header: 'Peer' },
          { header: 'Capacity (sat)', align: 'right' },
          { header: 'Local (sat)', align: 'right' },
          { header: 'State' },
        ],
        rows: [
          ['03ab…91f2', '1,000,000', '420,000', 'open'],
          ['02cd…77e0', '250,000', '250,000', 'open'],
          ['03ef…1a2b', '5,000,000', '12', 'closing'],
        ],
        caption: 'showing 3 of 3',
      }),
    ],
  },
  confirmation: {
    header: 'Stop alice?',
    tone: 'warning',
    blocks: [
      msg.text(['This stops ', { bold: 'alice' }, '. Its channels go offline until it is started again.']),
      msg.context('Only the requester can confirm · expires in 5 minutes'),
    ],
    buttons: [
      { label: 'Stop alice', style: 'danger', command: 'node stop', args: { node: 'alice' }, id: 'cf_01HZX3' },
      { label: 'Cancel', command: 'cancel', id: 'cf_01HZX3_no' },
    ],
  },
  error: {
    header: 'Could not start bob',
    tone: 'danger',
    blocks: [
      msg.text('The service answered 409: node is IN_PROGRESS.'),
      msg.context(['Wait until it is RUNNING, then try again: ', { code: '/rln node info bob' }]),
    ],
  },
};

describe('the Block Kit golden files', () => {
  for (const [name, message] of Object.entries(examples)) {
    it(`renders the ${name} message as its golden file, within every Slack limit`, () => {
      const rendered = toBlockKit(message);
      assertSlackLimits(rendered);
      expectGolden(`slack/${name}`, rendered);
    });
  }
});

describe('toBlockKit', () => {
  it('escapes user data so mentions, links and formatting render literally', () => {
    const r = toBlockKit({
      header: '<!channel> *x*',
      blocks: [msg.text('<!here> <@U123> *bold* _it_ ~s~ `c` a&b'), msg.fields([{ label: '<!channel>', value: '*x*' }])],
    });
    // plain_text (the header) is never parsed for mentions or markup: it stays as typed.
    expect((allBlocks(r)[0] as any).text).toMatchObject({ type: 'plain_text', text: '<!channel> *x*' });
    const json = JSON.stringify(allBlocks(r).slice(1));
    const section = (allBlocks(r)[1] as any).text.text as string;
    expect(section).toContain('&lt;!here&gt;');
    expect(section).toContain('&lt;@U123&gt;');
    expect(section).toContain('a&amp;b');
    expect(section).not.toMatch(/\*bold\*/);
    expect(section).not.toMatch(/`c`/);
    expect(json).not.toContain('<!channel>');
    expect(json).not.toContain('<!here>');
    expect(r.text).not.toContain('<!channel>');
  });

  it('leaves an underscore inside a word alone, so names and statuses copy back unchanged', () => {
    const r = toBlockKit({ blocks: [msg.text('my_node is IN_PROGRESS; _x_ is not italic')] });
    const t = (r.blocks[0] as any).text.text as string;
    expect(t).toContain('my_node is IN_PROGRESS;');
    expect(t).not.toContain('_x_');
  });

  it('keeps a backtick inside inline code from closing the span and letting the rest format', () => {
    const r = toBlockKit({ blocks: [msg.text(['run ', { code: 'x` *boom* <!here> `y' }])] });
    const t = (r.blocks[0] as any).text.text as string;
    expect(t.split('`')).toHaveLength(3);
    expect(t).toContain('&lt;!here&gt;');
  });

  it('turns structural emphasis into mrkdwn and refuses unsafe link targets', () => {
    const r = toBlockKit({
      blocks: [
        msg.text([
          { bold: 'b' },
          ' ',
          { link: { url: 'https://x.test/a?b=1&c=2', label: 'L' } },
          ' ',
          { link: { url: 'javascript:alert(1)', label: 'J' } },
        ]),
      ],
    });
    const t = (r.blocks[0] as any).text.text as string;
    expect(t).toContain('*b*');
    expect(t).toContain('<https://x.test/a?b=1&amp;c=2|L>');
    expect(t).not.toContain('<javascript');
  });

  it('refuses a button without an id or with an id over 255 characters', () => {
    const base: Message = { blocks: [], buttons: [{ label: 'Go', command: 'node start' }] };
    expect(() => toBlockKit(base)).toThrow(SlackRenderError);
    expect(() => toBlockKit({ blocks: [], buttons: [{ label: 'Go', command: 'x', id: 'a'.repeat(256) }] })).toThrow(/255/);
    expect(() => toBlockKit({ blocks: [], buttons: [{ label: 'Go', command: 'x', id: 'a'.repeat(255) }] })).not.toThrow();
  });

  it('puts 30 buttons in two actions blocks of at most 25', () => {
    const buttons = Array.from({ length: 30 }, (_, i) => ({ label: `b${i}`, command: 'x', id: `id${i}` }));
    const r = toBlockKit({ blocks: [], buttons });
    const actions = allBlocks(r).filter((b) => b.type === 'actions') as any[];
    expect(actions.map((a) => a.elements.length)).toEqual([25, 5]);
    assertSlackLimits(r);
  });

  it('summarises a long table visibly and stays within the section limit', () => {
    const rows = Array.from({ length: 500 }, (_, i) => [`node-${i}`, String(i * 1000), 'RUNNING']);
    const r = toBlockKit(
      { blocks: [msg.table({ columns: [{ header: 'Name' }, { header: 'Sat', align: 'right' }, { header: 'Status' }], rows })] },
      { nativeTables: false },
    );
    assertSlackLimits(r);
    const json = JSON.stringify(r.blocks);
    expect(json).toMatch(/… \d+ more rows not shown/);
    const shown = (json.match(/node-\d+/g) ?? []).length;
    const more = Number(/… (\d+) more rows/.exec(json)![1]);
    expect(shown + more).toBe(500);
  });

  it('splits long text into several sections without losing any of it', () => {
    const text = Array.from({ length: 400 }, (_, i) => `line ${i} of the log`).join('\n');
    const r = toBlockKit({ blocks: [msg.text(text)] });
    assertSlackLimits(r);
    expect(r.blocks.length).toBeGreaterThan(1);
    const joined = r.blocks.map((b: any) => b.text.text).join('\n');
    expect(joined).toBe(text);
  });

  it('cuts a too-long field and code block with a visible note', () => {
    const r = toBlockKit({ blocks: [msg.fields([{ label: 'Big', value: 'x'.repeat(5000) }]), msg.code('y'.repeat(10_000))] });
    assertSlackLimits(r);
    const json = JSON.stringify(r.blocks);
    expect(json).toMatch(/more characters cut/);
    expect(json).toMatch(/more characters not shown/);
  });

  it('keeps every button and notes dropped blocks when a message has too many blocks', () => {
    const r = toBlockKit({
      blocks: Array.from({ length: 80 }, (_, i) => msg.text(`t${i}`)),
      buttons: [{ label: 'Ack', command: 'x', id: 'ack1' }],
    });
    assertSlackLimits(r);
    const blocks = allBlocks(r);
    expect(blocks.at(-1)!.type).toBe('actions');
    expect(JSON.stringify(blocks)).toMatch(/more blocks not shown/);
  });

  it('never leaves the top level without blocks, where Slack would show the fallback text as a second copy', () => {
    const one = toBlockKit({ tone: 'success', summary: 'alice is RUNNING again', blocks: [msg.text('alice is RUNNING again')] });
    expect(one.blocks).toHaveLength(1);
    expect(one.attachments).toBeUndefined();
    expect(JSON.stringify(allBlocks(one)).split('alice is RUNNING again')).toHaveLength(2);
    expect(one.text).toBe('alice is RUNNING again');

    const more = toBlockKit({
      tone: 'danger',
      blocks: [msg.text('lead'), msg.text('details')],
      buttons: [{ label: 'Go', command: 'x', id: 'b1' }],
    });
    expect(JSON.stringify(more.blocks)).toContain('lead');
    expect(more.attachments?.[0].color).toBe('#e01e5a');
    expect(JSON.stringify(more.attachments?.[0].blocks)).toContain('details');
    expect(JSON.stringify(more.attachments?.[0].blocks)).not.toContain('lead');
  });

  it('colours a message by tone with an attachment bar', () => {
    const r = toBlockKit({ header: 'x', tone: 'danger', blocks: [msg.text('body')] });
    expect(r.attachments?.[0].color).toBe('#e01e5a');
    expect(r.blocks.map((b) => b.type)).toEqual(['header']);
    expect(r.attachments?.[0].blocks.map((b) => b.type)).toEqual(['section']);
  });

  it('stays within every limit and never lets user text open a mention, whatever the text', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 4000 }),
        fc.string({ maxLength: 300 }),
        fc.array(fc.string({ maxLength: 60 }), { maxLength: 30 }),
        (text, header, cells) => {
          const r = toBlockKit({
            header,
            blocks: [
              msg.text(text),
              msg.fields(cells.map((c) => ({ label: c, value: c }))),
              msg.table({ columns: [{ header: 'a' }], rows: cells.map((c) => [c]) }),
              msg.context(text),
            ],
          });
          assertSlackLimits(r);
          for (const b of allBlocks(r)) {
            const t = JSON.stringify(b.type === 'header' ? {} : b);
            expect(t).not.toMatch(/<[!@#]/);
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe("Slack's native table blocks", () => {
  const columns = [{ header: 'Node' }, { header: 'Sat', align: 'right' as const }, { header: 'Status' }];
  const rows = (n: number) =>
    Array.from({ length: n }, (_, i) => [`node-${i}`, (i * 1000).toLocaleString('en-US'), i % 2 ? 'RUNNING' : '']);
  const tablesOf = (r: ReturnType<typeof toBlockKit>) => allBlocks(r).filter((b) => b.type === 'table' || b.type === 'data_table') as any[];

  it('draws a short table as one table block, the header row first, aligned as the columns say', () => {
    const r = toBlockKit({ header: 'Nodes', blocks: [msg.table({ columns, rows: rows(3), caption: 'showing 3 of 3' })] });
    assertSlackLimits(r);
    const [t] = tablesOf(r);
    expect(tableBlockProblems(t)).toEqual([]);
    // The shape @slack/types gives the block.
    const typed: TableBlock = t;
    expect(typed.rows[0]).toEqual([
      { type: 'raw_text', text: 'Node' },
      { type: 'raw_text', text: 'Sat' },
      { type: 'raw_text', text: 'Status' },
    ]);
    expect(typed.rows[2]).toEqual([
      { type: 'raw_text', text: 'node-1' },
      { type: 'raw_text', text: '1,000' },
      { type: 'raw_text', text: 'RUNNING' },
    ]);
    // An empty cell still has the one character Slack requires.
    expect(typed.rows[1][2]).toEqual({ type: 'raw_text', text: '–' });
    expect(typed.column_settings).toEqual([{ align: 'left' }, { align: 'right' }, { align: 'left' }]);
    expect(JSON.stringify(allBlocks(r))).toContain('showing 3 of 3');
    expect(JSON.stringify(allBlocks(r))).not.toContain('```');
  });

  it('lets Slack page a table longer than 20 rows as a data_table, numbers sortable, and says what did not fit', () => {
    const r = toBlockKit({ header: 'Payments', blocks: [msg.table({ columns, rows: rows(130) })] });
    assertSlackLimits(r);
    const [t] = tablesOf(r);
    const typed: DataTableBlock = t;
    expect(typed.type).toBe('data_table');
    expect(typed.page_size).toBe(20);
    expect(typed.caption).toBe('Payments');
    expect(typed.rows).toHaveLength(101);
    expect(typed.rows[3][1]).toEqual({ type: 'raw_number', value: 2000, text: '2,000' });
    expect(JSON.stringify(allBlocks(r))).toContain('… 30 more rows not shown');
  });

  it('keeps to one table per message: a second table, or one wider than 20 columns, is drawn as monospace text', () => {
    const wide = {
      columns: Array.from({ length: 21 }, (_, i) => ({ header: `c${i}` })),
      rows: [Array.from({ length: 21 }, (_, i) => `v${i}`)],
    };
    const r = toBlockKit({ blocks: [msg.table(wide), msg.table({ columns, rows: rows(2) }), msg.table({ columns, rows: rows(2) })] });
    assertSlackLimits(r);
    expect(tablesOf(r)).toHaveLength(1);
    expect(tablesOf(r)[0].rows[0]).toHaveLength(3);
    const text = JSON.stringify(allBlocks(r));
    expect(text).toContain('c20');
    expect((text.match(/```/g) ?? []).length).toBe(4);
  });

  it('keeps a message with a table at the top level, where Slack shows its table, even with a tone', () => {
    const r = toBlockKit({ header: 'Schedules', tone: 'info', blocks: [msg.table({ columns, rows: rows(2) }), msg.context('note')] });
    assertSlackLimits(r);
    expect(r.attachments).toBeUndefined();
    expect(r.blocks.map((b) => b.type)).toEqual(['header', 'table', 'context']);
  });

  it('draws tables as text where native tables are not wanted (App Home), and for a table with no rows', () => {
    expect(tablesOf(toBlockKit({ blocks: [msg.table({ columns, rows: rows(2) })] }, { nativeTables: false }))).toHaveLength(0);
    const empty = toBlockKit({ blocks: [msg.table({ columns, rows: [] })] });
    expect(tablesOf(empty)).toHaveLength(0);
    expect(JSON.stringify(empty.blocks)).toContain('(no rows)');
  });

  it("is checked by a validator that knows Slack's table rules", () => {
    const t = (n: number) => ({ type: 'table', rows: Array.from({ length: n }, () => [{ type: 'raw_text', text: 'x' }]) });
    expect(tableBlockProblems(t(100))).toEqual([]);
    expect(tableBlockProblems(t(101))).toEqual(['table: 101 rows (1–100)']);
    expect(tableBlockProblems({ type: 'table', rows: [[{ type: 'raw_text', text: '' }]] })).toHaveLength(1);
    expect(tableBlockProblems({ type: 'table', rows: [[{ type: 'mrkdwn', text: 'x' }]] })).toHaveLength(1);
    expect(
      tableBlockProblems({ type: 'table', rows: [[{ type: 'raw_text', text: 'x' }]], column_settings: [{ align: 'middle' }] }),
    ).toHaveLength(1);
    expect(tableBlockProblems({ type: 'data_table', rows: [[{ type: 'raw_text', text: 'h' }]] })).toEqual([
      'data_table: 1 rows with the header (2–101)',
      'data_table: caption is required',
    ]);
    expect(
      tableBlockProblems({
        type: 'data_table',
        caption: 'c',
        rows: [
          [{ type: 'raw_text', text: 'h' }],
          [
            { type: 'raw_text', text: 'a' },
            { type: 'raw_text', text: 'b' },
          ],
        ],
      }),
    ).toHaveLength(1);
    expect(messageTableProblems({ blocks: [t(1), t(1)] })).toEqual(['2 table blocks in one message (only one is allowed)']);
    expect(messageTableProblems({ blocks: [], attachments: [{ blocks: [t(1)] }] })).toEqual(['a table block inside an attachment']);
  });
});

describe('dialogToModal', () => {
  it('builds a modal with one input per field, the dialog id as callback_id and the origin in private_metadata', () => {
    const view = dialogToModal(
      {
        id: 'dlg_01HZX',
        title: 'Destroy node alice-with-a-very-long-name',
        intro: 'Type *alice* to destroy it. <!channel>',
        submitLabel: 'Destroy',
        fields: [
          { name: 'confirm_name', label: 'Node name', kind: 'text', required: true, placeholder: 'alice' },
          { name: 'backup_first', label: 'Run /backup first', kind: 'checkbox', initial: 'true' },
          { name: 'password', label: 'Backup password', kind: 'secret', required: false, initial: 'never-prefilled' },
        ],
      },
      { channelId: 'C0OPS', workspaceId: 'T1' },
    ) as any;
    assertModalLimits(view);
    expect(view.callback_id).toBe('dlg_01HZX');
    expect(view.title.text.length).toBeLessThanOrEqual(24);
    expect(view.blocks[0].text.text).toContain('&lt;!channel&gt;');
    const inputs = view.blocks.filter((b: any) => b.type === 'input');
    expect(inputs.map((b: any) => [b.block_id, b.element.action_id, b.element.type])).toEqual([
      ['confirm_name', 'confirm_name', 'plain_text_input'],
      ['backup_first', 'backup_first', 'checkboxes'],
      ['password', 'password', 'plain_text_input'],
    ]);
    expect(inputs[1].element.initial_options).toHaveLength(1);
    expect(inputs[2].element.initial_value).toBeUndefined();
    expect(inputs[2].optional).toBe(true);
    expect(readModalOrigin(view.private_metadata)).toEqual({ channelId: 'C0OPS', workspaceId: 'T1' });
  });

  it('asks for a node with an external select', () => {
    const view = dialogToModal({
      id: 'd',
      title: 'Pick',
      submitLabel: 'Go',
      fields: [{ name: 'node', label: 'Node', kind: 'text' }],
    }) as any;
    expect(view.blocks[0].element).toMatchObject({ type: 'external_select', action_id: 'node', min_query_length: 0 });
  });

  it('preselects a node only when its name fits an option value, never a cut one', () => {
    const pick = (initial: string) =>
      (
        dialogToModal({
          id: 'd',
          title: 'Pick',
          submitLabel: 'Go',
          fields: [{ name: 'node', label: 'Node', kind: 'text', initial }],
        }) as any
      ).blocks[0].element;
    expect(pick('alice').initial_option).toMatchObject({ value: 'alice' });
    expect(pick('n'.repeat(151)).initial_option).toBeUndefined();
  });
});
