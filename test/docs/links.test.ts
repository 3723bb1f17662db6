/**
 * Every relative link of the README, the guides and the clients' manuals leads to a file of the
 * repository, and every `#anchor` to a heading of its page, as GitHub names headings.
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

  it('the README links every guide', () => {
    const readme = readPage('README.md');
    for (const guide of docPages.filter((p) => p.startsWith('docs/'))) expect(readme).toContain(`](${guide})`);
  });
});
