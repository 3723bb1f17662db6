import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** The committed timings: each file's seconds in a recent run, slowest first (npm run test:timings). */
const timingsFile = new URL('./file-timings.json', import.meta.url);

/** A file the timings do not know yet (new since they were kept) counts as a median file. */
const UNKNOWN_SECONDS = 1;

/**
 * The longest files start first, so that the workers finish together instead of one running the
 * last slow file alone. vitest orders by its own cache of an earlier run, which a fresh clone (CI) does
 * not have: the committed timings are the same on every machine.
 */
export class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const seconds: Record<string, number> = JSON.parse(readFileSync(timingsFile, 'utf8'));
    const time = (file: TestSpecification) => seconds[relative(this.ctx.config.root, file.moduleId)] ?? UNKNOWN_SECONDS;
    return sorted.sort((a, b) => time(b) - time(a));
  }
}
