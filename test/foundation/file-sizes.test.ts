import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * No file in src/ over 400 lines (STYLE: a file past ~250 lines is two files; past 400 it certainly holds two
 * concepts). The one exception is src/db/schema.ts: the tables drizzle-kit reads as one. A file over the limit
 * is named with its length, so the failure says what to split.
 */

const root = resolve(import.meta.dirname, '../..');
const MAX_LINES = 400;
const EXCEPTIONS = new Set(['src/db/schema.ts']);

interface SourceFile {
  /** Relative to the repository: `src/page/watch.js`. */
  path: string;
  lines: number;
}

/** Lines as an editor numbers them (and `wc -l` counts them in a file that ends with a newline). */
const lineCount = (text: string): number => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);

/** The server's TypeScript, the browser's scripts and the stylesheets. */
function sourceFiles(dir: string): SourceFile[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    if (!/\.(ts|js|css)$/.test(entry.name)) return [];
    return [{ path: relative(root, path), lines: lineCount(readFileSync(path, 'utf8')) }];
  });
}

/** Each file over the limit but the exceptions, with its length. */
function tooLong(files: SourceFile[]): string[] {
  return files
    .filter((file) => file.lines > MAX_LINES && !EXCEPTIONS.has(file.path))
    .map((file) => `${file.path}: ${file.lines} lines (at most ${MAX_LINES})`);
}

const files = sourceFiles(join(root, 'src'));

describe('file sizes in src/', () => {
  it('reads the TypeScript, the scripts and the stylesheets of src/ (the check sees the house it checks)', () => {
    const paths = files.map((file) => file.path);
    expect(paths).toEqual(expect.arrayContaining(['src/app.ts', 'src/page/watch.js', 'src/page/app.css']));
    expect(files.length).toBeGreaterThan(200);
  });

  it('has no file over 400 lines but src/db/schema.ts', () => {
    expect(tooLong(files)).toEqual([]);
  });

  it('keeps its exception only while it is needed: src/db/schema.ts is over the limit', () => {
    for (const path of EXCEPTIONS) expect(files.find((file) => file.path === path)?.lines).toBeGreaterThan(MAX_LINES);
  });

  it('names each planted file over the limit with its length, and none at the limit (the check can fail)', () => {
    const planted: SourceFile[] = [
      { path: 'src/domain/long.ts', lines: 401 },
      { path: 'src/page/at-the-limit.css', lines: 400 },
      { path: 'src/db/schema.ts', lines: 900 },
      { path: 'src/page/long.js', lines: 512 },
    ];
    expect(tooLong(planted)).toEqual([
      'src/domain/long.ts: 401 lines (at most 400)',
      'src/page/long.js: 512 lines (at most 400)',
    ]);
    expect([lineCount('a\nb\n'), lineCount('a\nb')]).toEqual([2, 2]);
  });
});
