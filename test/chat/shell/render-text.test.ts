import { describe, expect, it } from 'vitest';
import { displayWidth, renderText } from '../../../src/chat/shell/render-text.js';
import { msg } from '../../../src/vocabulary/message.js';

describe('renderText', () => {
  it('renders a header marker by tone, fields, an aligned table, progress and buttons to type', () => {
    const text = renderText({
      header: 'Balances',
      tone: 'success',
      blocks: [
        msg.fields([
          { label: 'Node', value: 'alice' },
          { label: 'Status', value: [{ bold: 'RUNNING' }] },
        ]),
        msg.table({
          columns: [{ header: 'Asset' }, { header: 'Amount', align: 'right' }],
          rows: [
            ['BTC', '1,234'],
            ['USDT', '5'],
          ],
          caption: 'showing 2 of 2',
        }),
        msg.progress('Sync', 3, 4),
        msg.context([{ code: 'node info alice' }]),
      ],
      buttons: [
        { label: 'Confirm', command: '__confirm', id: 'b_abc' },
        { label: 'Logs', command: 'node logs', id: 'b_def' },
      ],
    });
    const lines = text.split('\n');
    expect(lines[0]).toBe('✔ Balances');
    expect(lines).toContain('Node:   alice');
    expect(lines).toContain('Status: RUNNING');
    expect(lines).toContain('Asset  Amount');
    expect(lines).toContain('BTC     1,234');
    expect(lines).toContain('USDT        5');
    expect(lines).toContain('showing 2 of 2');
    expect(text).toContain('Sync [███████████████░░░░░] 75% (3/4)');
    expect(text).toContain('`node info alice`');
    expect(text).toContain('[Confirm] → type: confirm b_abc');
    expect(text).toContain('[Logs] → type: click b_def');
  });

  it('marks danger, strips terminal control characters from user data', () => {
    const text = renderText({ header: 'Failed', tone: 'danger', blocks: [msg.text('bad\u001b[31m name\r')] });
    expect(text.startsWith('✖ Failed')).toBe(true);
    expect(text).not.toContain('\u001b');
    expect(text).toContain('bad[31m name');
  });

  it('aligns columns holding emoji by terminal width', () => {
    const lines = renderText({
      blocks: [
        msg.table({
          columns: [{ header: 'Status' }, { header: 'Name' }],
          rows: [
            ['🟢 RUNNING', 'a'],
            ['FAILED', 'b'],
          ],
        }),
      ],
    }).split('\n');
    const at = (l: string) => l.indexOf(l.trim().split(/\s{2,}/)[1]);
    expect(lines[2].endsWith('a')).toBe(true);
    // '🟢' takes two cells (and two UTF-16 units), so the name column starts at the same index.
    expect(at(lines[2])).toBe(at(lines[3]));
    expect(displayWidth('🟢 RUNNING')).toBe(10);
    expect(displayWidth('é')).toBe(1);
  });
});
