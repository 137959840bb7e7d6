/**
 * The audit CSV starts no formula wherever it is opened: a spreadsheet in a `;` (or tab, or `|`)
 * locale splits every line at that character, whatever the quotes, so every piece it makes must
 * start with something that is not a formula. Read back as the comma CSV it is, every value is
 * still there.
 */
import { describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import { auditCsv, csvCell } from '../../commands/support/audit-filters.js';

const HOSTILE = [
  'x;=1+1',
  'x,=1+1',
  'x\t=1+1',
  'x|=1+1',
  'x; =1+1',
  'x;"=1+1',
  'x;-2+3',
  'x;+cmd|calc',
  'x;@SUM(A1)',
  '=HYPERLINK("x")',
  ' =1+1',
  '\t=1',
  '\rx',
  'a\n=1+1',
  'a\r\n@x',
  '＝1+1',
  'x;＋1',
];

/** How a spreadsheet that splits at `sep` and at line ends sees the cells, quotes taken as characters. */
function naiveCells(text: string, sep: string): string[] {
  return text.split(/\r\n|\n|\r/).flatMap((line) => line.split(sep));
}

const FORMULA = /^[=+\-@＝＋－＠\t\r]/;

describe('audit CSV', () => {
  const entries = HOSTILE.map((name, i) => ({
    id: i,
    at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)),
    actor: { platform: 'slack', userId: `U${i}`, displayName: name },
    place: { platform: 'slack', channelId: 'C1' },
    path: 'node stop',
    node: name,
    args: { note: name },
    outcome: 'ok' as const,
    reason: name,
  }));
  // Newest first, as the audit log answers: the CSV is oldest first.
  const csv = auditCsv([...entries].reverse());

  it.each([',', ';', '\t', '|'])('starts no cell with a formula when split at %j', (sep) => {
    for (const cell of naiveCells(csv, sep)) {
      const seen = cell.replace(/^[\s\u00a0"]+/, '');
      expect(seen, `a cell of ${JSON.stringify(cell)}`).not.toMatch(FORMULA);
    }
  });

  it('keeps every value, read as the comma CSV it is', () => {
    const rows: Array<Record<string, string>> = parse(csv, { columns: true });
    expect(rows).toHaveLength(HOSTILE.length);
    rows.forEach((r, i) => {
      expect(r.user_name.replace(/'/g, '')).toBe(HOSTILE[i]);
      expect(r.node).toBe(r.user_name);
    });
  });

  it('leaves a plain cell as it is and quotes one holding any locale separator', () => {
    expect(csvCell('alice')).toBe('alice');
    expect(csvCell('kind=approval subject=node.stop')).toBe('kind=approval subject=node.stop');
    expect(csvCell('x;=1+1')).toBe(`"x;'=1+1"`);
    expect(csvCell('=1')).toBe(`'=1`);
  });
});
