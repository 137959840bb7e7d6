/**
 * rowChunks: a list of rows in runs of a few fixed sizes, largest first, so a multi-row
 * statement has one text per size (insertEvents, insertEventRows).
 */
import { describe, expect, it } from 'vitest';
import { rowChunks } from '../../src/store/row-chunks.js';

const runs = async (sizes: number[], count: number) => {
  const out: Array<[start: number, size: number, values: string]> = [];
  await rowChunks(sizes, '(?)')(count, async (values, start, size) => void out.push([start, size, values]));
  return out;
};

describe('rowChunks', () => {
  it('covers every row once, in order, in runs of the given sizes, largest first', async () => {
    expect((await runs([64, 8, 1], 75)).map(([start, size]) => [start, size])).toEqual([
      [0, 64],
      [64, 8],
      [72, 1],
      [73, 1],
      [74, 1],
    ]);
    expect((await runs([16, 8, 4, 2, 1], 23)).map(([start, size]) => [start, size])).toEqual([
      [0, 16],
      [16, 4],
      [20, 2],
      [22, 1],
    ]);
    expect(await runs([4, 1], 0)).toEqual([]);
    expect((await runs([4, 1], 2)).map(([, , values]) => values)).toEqual(['(?)', '(?)']);
    expect((await runs([4, 1], 4))[0][2]).toBe('(?), (?), (?), (?)');
  });

  it('gives the same runs at once, for a synchronous writer', async () => {
    for (const [sizes, count] of [
      [[64, 8, 1], 75],
      [[16, 8, 4, 2, 1], 23],
      [[4, 1], 0],
    ] as Array<[number[], number]>) {
      const atOnce = rowChunks(sizes, '(?)').runs(count);
      expect(atOnce.map((r) => [r.start, r.size, r.values])).toEqual(await runs(sizes, count));
    }
  });

  it('refuses sizes that cannot cover every count or are not largest first', () => {
    expect(() => rowChunks([8, 2], '(?)')).toThrow(/end with 1/);
    expect(() => rowChunks([1, 8], '(?)')).toThrow(/decreasing/);
  });
});
