/** Paging a list: a page past the last is refused with how many there are (issue 26, P28), not shown as page 1. */
import { describe, expect, it } from 'vitest';
import { paginate } from '../../commands/support/paginate.js';

describe('paginate', () => {
  const rows = ['a', 'b', 'c', 'd'];

  it('shows the page asked for, with a caption when there is more than one', () => {
    expect(paginate(rows, { limit: 2, page: 2 })).toEqual({ items: ['c', 'd'], start: 2, caption: expect.stringContaining('page 2/2') });
    expect(paginate(rows, { limit: 20 })).toEqual({ items: rows, start: 0 });
  });

  it('starts at a row with from= (where a page cut short stopped), and refuses a row past the last', () => {
    expect(paginate(rows, { limit: 2, from: 2 })).toEqual({
      items: ['b', 'c'],
      start: 1,
      caption: expect.stringContaining('showing 2-3 of 4'),
    });
    expect(() => paginate(rows, { limit: 2, from: 5 })).toThrow('There is no row 5: there are 4 rows.');
  });

  it('says there is no page 9, and how many there are', () => {
    expect(() => paginate(rows, { limit: 20, page: 9 })).toThrow('There is no page 9: 4 rows make one page of 20.');
    expect(() => paginate(rows, { limit: 2, page: 3 })).toThrow('There is no page 3: 4 rows make 2 pages of 2.');
  });
});
