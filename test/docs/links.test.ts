/**
 * Every relative link of the README, the guides and the clients' manuals leads to a file of the
 * repository, and every `#anchor` to a heading of its page, as GitHub names headings. Every path of the
 * repository the README and the guides name (`src/…`, `test/…`) exists, so a recipe never sends a reader
 * to a file that moved.
 */
import { existsSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { clientManuals, docPages, readPage, repoRoot } from './doc-blocks.js';

/** The page's text outside its fenced blocks. */
const withoutFences = (page: string) => readPage(page).replace(/^ {0,3}(`{3,})[^\n]*\n[\s\S]*?^ {0,3}\1`*\s*$/gm, '');

/** Where links live: outside fenced blocks and inline code. */
const prose = (page: string) => withoutFences(page).replace(/`[^`\n]*`/g, '');

/** GitHub's anchor for each heading: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchorsOf(page: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const m of withoutFences(page).matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)) {
    const base = m[1]!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

/**
 * The paths under src/, test/, scripts/, clients/ or bin/ a text names that do not exist. A path inside another
 * (`dist/src/main.js`, `/usr/bin/chromium`) is not one, nor a pattern (`console-<name>.test.ts`, `0015_…`).
 */
function missingPaths(text: string): string[] {
  const named = text.matchAll(/(?<![\w/.<>-])((?:src|test|scripts|clients|bin)\/[\w./-]*[\w/])(?![\w<…*-])/g);
  return [...named].map((m) => m[1]!.replace(/\.+$/, '')).filter((path) => !existsSync(join(repoRoot, path)));
}

const pages = [...docPages, ...clientManuals];

describe('links', () => {
  it.each(pages)('every relative link of %s leads somewhere', (page) => {
    const targets = [...prose(page).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)]
      .map((m) => m[1]!)
      .filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t));
    const broken = targets.filter((target) => {
      const [path, anchor] = target.split('#') as [string, string | undefined];
      const file = path === '' ? page : relative(repoRoot, normalize(join(repoRoot, dirname(page), path)));
      if (!existsSync(join(repoRoot, file))) return true;
      return anchor !== undefined && (!file.endsWith('.md') || !anchorsOf(file).has(anchor));
    });
    expect(broken).toEqual([]);
  });

  it.each(docPages)('every path of the repository %s names exists', (page) => {
    expect(missingPaths(readPage(page))).toEqual([]);
  });

  it('the path check finds a planted path that does not exist, and passes over patterns and paths inside others', () => {
    const planted =
      'See `src/domain/events/event-trail.ts`, `src/domain/nowhere.ts` and src/cli/, run dist/src/main.js, ' +
      'write `test/console/console-<name>.test.ts`, start /usr/bin/chromium.';
    expect(missingPaths(planted)).toEqual(['src/domain/nowhere.ts']);
  });

  // The design document is not in the repository: a reader's guide never sends them to it. development.md (for
  // whoever changes the code, whose comments cite it) and measurements.md (a record) are the exceptions.
  it.each(pages.filter((p) => p !== 'docs/development.md' && p !== 'docs/measurements.md'))(
    '%s cites no section of a document outside the repository',
    (page) => {
      expect(withoutFences(page).match(/DESIGN\s*§\s*\d+|(?<!RFC \d+ )§\s*\d+/g) ?? []).toEqual([]);
    },
  );

  it('the README links every guide', () => {
    const readme = readPage('README.md');
    for (const guide of docPages.filter((p) => p.startsWith('docs/'))) expect(readme).toContain(`](${guide})`);
  });
});
