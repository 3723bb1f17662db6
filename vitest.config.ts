import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';
import { ONCE_FILES } from './test/support/test-groups.js';
import { SlowFirstSequencer } from './test/support/slow-first-sequencer.js';

/** What every file of either group runs with. */
const shared: TestProjectInlineConfiguration['test'] = {
  // Each file opens its own database.
  pool: 'forks',
  // A worker runs its files one after another in one module graph: the app, its schemas, PGlite's
  // WebAssembly and the OpenAPI validator are loaded and warmed once per worker, not once per file
  // (half the suite's CPU). Files share no state but the modules: each opens its own database and
  // app and closes them, and a file that fakes timers puts them back.
  isolate: false,
  testTimeout: 30_000,
  hookTimeout: 60_000,
  // Every answer a test receives is checked against the OpenAPI document (test/support/response-validator.ts).
  setupFiles: ['test/support/validation-setup.ts'],
};

export default defineConfig({
  test: {
    // Three workers on two cores: many files wait (on a server they started, a browser, a shell, a
    // process), and with two the CPU stood idle 17 % of an npm test. Measured on PGlite, the same tree
    // back to back: two workers 350 s (167 % CPU), three 307 s (177 %). CI's passes 2 and 3, which run
    // together, keep two each (.ci/run).
    maxWorkers: 3,
    // The slowest files first, by the committed timings (test/support/file-timings.json).
    sequence: { sequencer: SlowFirstSequencer },
    // global-setup.ts makes once what every file's database starts from (a PGlite seed, or a PostgreSQL
    // template), for both groups.
    globalSetup: ['test/support/global-setup.ts', 'test/support/validation-count.ts'],
    // Each file's time, in test-artifacts/file-timings-<database>.json (npm run test:timings keeps them).
    reporters: ['default', './test/support/file-timings-reporter.ts'],
    // Two groups (test/support/test-groups.ts says which file is in which, and why): `npm test` runs both;
    // CI's PostgreSQL passes run the database group only (npm run test:database).
    projects: [
      {
        test: {
          ...shared,
          name: 'database',
          include: ['test/**/*.test.ts', 'clients/typescript/test/**/*.test.ts'],
          exclude: [...ONCE_FILES],
        },
      },
      { test: { ...shared, name: 'once', include: [...ONCE_FILES] } },
    ],
  },
});
