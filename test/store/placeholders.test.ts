/**
 * The `?` / `@name` to `$n` translator for PostgreSQL: placeholders become numbers, and nothing
 * inside strings, quoted names, comments or dollar-quoted bodies is touched.
 */
import { describe, expect, it } from 'vitest';
import { toNumbered, valuesFor } from '../../src/store/sql/placeholders.js';

describe('toNumbered', () => {
  it('numbers ? in order and @name once per name', () => {
    expect(toNumbered('SELECT ? , ?')).toEqual({ text: 'SELECT $1 , $2', names: undefined, count: 2 });
    const t = toNumbered('SELECT @a, @b, @a');
    expect(t.text).toBe('SELECT $1, $2, $1');
    expect(valuesFor(t, { a: 1, b: undefined })).toEqual([1, null]);
    expect(() => toNumbered('SELECT ?, @a')).toThrow(/mixes/);
  });

  it('leaves strings, quoted names and line comments alone', () => {
    expect(toNumbered(`SELECT 'a?b' , "c?@d", ? -- what? @x\n, ?`).text).toBe(`SELECT 'a?b' , "c?@d", $1 -- what? @x\n, $2`);
    expect(toNumbered(`SELECT 'it''s ?', ?`).text).toBe(`SELECT 'it''s ?', $1`);
  });

  it('leaves block comments alone, nested ones too', () => {
    expect(toNumbered('SELECT /* why? @x */ ?').text).toBe('SELECT /* why? @x */ $1');
    expect(toNumbered('SELECT /* a /* b? */ c? */ ?').text).toBe('SELECT /* a /* b? */ c? */ $1');
    expect(toNumbered('SELECT a/b, ?').text).toBe('SELECT a/b, $1');
  });

  it('leaves dollar-quoted bodies alone', () => {
    expect(toNumbered('DO $$ BEGIN PERFORM ?; END $$; SELECT ?').text).toBe('DO $$ BEGIN PERFORM ?; END $$; SELECT $1');
    expect(toNumbered('SELECT $fn$ a ? $$ @b $fn$, @c').text).toBe('SELECT $fn$ a ? $$ @b $fn$, $1');
    // $1 is not a dollar quote.
    expect(toNumbered('SELECT $1, ?').text).toBe('SELECT $1, $1');
  });

  it('honours backslash escapes in E strings only', () => {
    expect(toNumbered(`SELECT E'it\\'s ?', ?`).text).toBe(`SELECT E'it\\'s ?', $1`);
    expect(toNumbered(`SELECT e'a\\\\', ?`).text).toBe(`SELECT e'a\\\\', $1`);
    // In a standard string a backslash is an ordinary character.
    expect(toNumbered(`SELECT 'a\\', ?`).text).toBe(`SELECT 'a\\', $1`);
    expect(toNumbered(`SELECT name'x', ?`).text).toBe(`SELECT name'x', $1`);
  });
});
