/**
 * One PostgreSQL server for the whole test run (vitest globalSetup); each test file makes its
 * own database on it (test/support/databases.ts). The store's tests run on SQLite and on it.
 */
import type { TestProject } from 'vitest/node';
import { startPostgresServer } from './support/postgres-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresAdminUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startPostgresServer();
  project.provide('postgresAdminUrl', server.adminUrl);
  return () => server.stop();
}
