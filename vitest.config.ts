import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'clients/typescript/test/**/*.test.ts'],
    // Each file opens its own database; two workers match the two cores of CI.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    // Every answer a test receives is checked against the OpenAPI document (test/support/response-validator.ts).
    setupFiles: ['test/support/validation-setup.ts'],
    // global-setup.ts makes once what every file's database starts from (a PGlite seed, or a PostgreSQL template).
    globalSetup: ['test/support/global-setup.ts', 'test/support/validation-count.ts'],
    hookTimeout: 60_000,
  },
});
