// A vitest reporter: each test file's time (import, setup, tests and hooks), slowest first, written at
// the end of every run to test-artifacts/file-timings-<database>.json, so a slow file is found by reading
// one file instead of measuring again. `npm run test:timings` copies it into test/support/file-timings.json,
// which orders the next runs (slow-first-sequencer.ts).
import { mkdirSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

const database = process.env.DATABASE_URL ? `postgresql-${new URL(process.env.DATABASE_URL).port || '5432'}` : 'pglite';
// A run of a few files beside the passes (CI's failover and replica steps) names itself, so that it does not
// replace a pass's timings with its own.
const label = process.env.TEST_TIMINGS_LABEL ? `-${process.env.TEST_TIMINGS_LABEL}` : '';

export default class FileTimingsReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const files = testModules
      .map((module) => {
        const d = module.diagnostic();
        const ms = d.prepareDuration + d.collectDuration + d.setupDuration + d.duration;
        return {
          file: relative(module.project.config.root, module.moduleId),
          group: module.project.name,
          seconds: Math.round(ms / 100) / 10,
          state: module.state(),
        };
      })
      .sort((a, b) => b.seconds - a.seconds);
    mkdirSync('test-artifacts', { recursive: true });
    const at = `test-artifacts/file-timings-${database}${label}.json`;
    writeFileSync(at, `${JSON.stringify({ node: process.version, database, files }, null, 2)}\n`);
  }
}
