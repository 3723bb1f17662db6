import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that wait on other processes or on real time (Chromium, the bats suite, the drift check,
 * spawned servers and commands), longest first. Each takes many times the median file.
 */
const slowest = [
  'test/page/code-watch.test.ts',
  'test/shell/activate-sh.test.ts',
  'clients/typescript/test/drift.test.ts',
  'test/outage/startup.test.ts',
  'test/operations/slowdns-command.test.ts',
];

/**
 * vitest starts the longest files first when it has their times from an earlier run (its cache in
 * node_modules/.vite), and otherwise the largest files first. On a fresh clone (CI's first pass) that
 * left the slowest files, which are small, to the end, one worker finishing them while the other had
 * nothing left to do: without timings for every file, the slowest ones start first.
 */
export class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const path = (file: TestSpecification) => relative(this.ctx.config.root, file.moduleId);
    if (sorted.every((file) => this.ctx.cache.getFileTestResults(`${file.project.name}:${path(file)}`))) return sorted;
    const rank = (file: TestSpecification) => {
      const index = slowest.indexOf(path(file));
      return index === -1 ? slowest.length : index;
    };
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}
