// `npm run test:timings`: keeps the last run's per-file times (test-artifacts/file-timings-pglite.json,
// written by test/support/file-timings-reporter.ts) in test/support/file-timings.json, which orders the
// next runs slowest first. Run it after a whole `npm test` and commit the file. A partial run updates
// the files it ran; a file that no longer exists is dropped.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

const run = process.argv[2] ?? 'test-artifacts/file-timings-pglite.json';
const kept = 'test/support/file-timings.json';
const seconds = existsSync(kept) ? JSON.parse(readFileSync(kept, 'utf8')) : {};
for (const { file, seconds: s } of JSON.parse(readFileSync(run, 'utf8')).files) seconds[file] = s;
const ordered = Object.entries(seconds)
  .filter(([file]) => existsSync(file))
  .sort(([, a], [, b]) => b - a);
writeFileSync(kept, `${JSON.stringify(Object.fromEntries(ordered), null, 2)}\n`);
console.log(
  `${kept}: ${ordered.length} files; the slowest: ${ordered
    .slice(0, 5)
    .map(([f, s]) => `${f} ${s} s`)
    .join(', ')}`,
);
