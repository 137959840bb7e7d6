/**
 * A test that fails on purpose. The project's config leaves it out unless RLN_MUST_FAIL=1;
 * test/project/failing-test-fails.test.ts runs it and expects vitest to exit non-zero.
 */
import { expect, it } from 'vitest';

it('fails', () => {
  expect(1).toBe(2);
});
