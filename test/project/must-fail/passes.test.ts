/** The passing twin of fails.test.ts: the same run on it must exit 0. */
import { expect, it } from 'vitest';

it('passes', () => {
  expect(1).toBe(1);
});
