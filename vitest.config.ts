import { defineConfig } from 'vitest/config';
import { SlowFirstSequencer } from './test/support/slow-first-sequencer.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'clients/typescript/test/**/*.test.ts'],
    // Each file opens its own database; two workers match the two cores of CI.
    pool: 'forks',
    maxWorkers: 2,
    // A worker runs its files one after another in one module graph: the app, its schemas, PGlite's
    // WebAssembly and the OpenAPI validator are loaded and warmed once per worker, not once per file
    // (half the suite's CPU). Files share no state but the modules: each opens its own database and
    // app and closes them, and a file that fakes timers puts them back.
    isolate: false,
    // The slowest files first, even on a fresh clone with no timings from an earlier run.
    sequence: { sequencer: SlowFirstSequencer },
    testTimeout: 30_000,
    // Every answer a test receives is checked against the OpenAPI document (test/support/response-validator.ts).
    setupFiles: ['test/support/validation-setup.ts'],
    // global-setup.ts makes once what every file's database starts from (a PGlite seed, or a PostgreSQL template).
    globalSetup: ['test/support/global-setup.ts', 'test/support/validation-count.ts'],
    hookTimeout: 60_000,
  },
});
