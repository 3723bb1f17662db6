// Runs in every test file (vitest setupFiles): answers checked inside a served app fail the test that
// provoked them, and the number of answers validated is added to this run's count.
import { appendFileSync, mkdirSync } from 'node:fs';
import { afterAll, afterEach } from 'vitest';
import { takeRecordedProblems, takeValidatedCount } from './response-validator.js';
import { VALIDATED_COUNTS_FILE } from './validation-count.js';

afterEach(() => {
  const problems = takeRecordedProblems();
  if (problems.length) throw new Error(`answer not as documented:\n${problems.join('\n')}`);
});

afterAll(() => {
  mkdirSync('test-artifacts', { recursive: true });
  appendFileSync(VALIDATED_COUNTS_FILE, `${takeValidatedCount()}\n`);
});
