/**
 * Every TypeScript block of the README, the guides and the TypeScript client's README type-checks
 * against the client's source, as an installer author would paste it (`@slowdns/activation-client`
 * mapped to clients/typescript/src). The blocks that run are run too (examples.test.ts).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blocksOf, clientManuals, docPages, repoRoot } from './doc-blocks.js';

const pages = [...docPages, ...clientManuals].filter((page) => blocksOf(page).some((b) => b.language === 'ts'));
const tsBlocks = (page: string) => blocksOf(page).filter((b) => b.language === 'ts');

describe('TypeScript blocks', () => {
  // One program for the blocks of every page: type-checking the client's source and the DOM and Node
  // typings it needs is most of the work, done once; each test then reads the problems of its page.
  let problemsOf: (page: string) => string[];
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'doc-ts-blocks-'));
    // .mts: each block is an ES module of its own (top-level await, no shared names).
    const files = new Map<string, { page: string; line: number }>();
    for (const page of pages) {
      for (const block of tsBlocks(page)) {
        const file = join(dir, `${page.replaceAll('/', '_')}-${block.line}.mts`);
        writeFileSync(file, block.text);
        files.set(file, { page, line: block.line });
      }
    }
    const program = ts.createProgram([...files.keys()], {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      strict: true,
      noUncheckedIndexedAccess: true,
      skipLibCheck: true,
      noEmit: true,
      lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
      types: ['node'],
      typeRoots: [join(repoRoot, 'node_modules/@types')],
      paths: { '@slowdns/activation-client': [join(repoRoot, 'clients/typescript/src/index.ts')] },
    });
    const problems = ts.getPreEmitDiagnostics(program).map((d) => {
      // A problem outside the blocks (in the client's source, say) counts against every page.
      const block = d.file ? files.get(d.file.fileName) : undefined;
      const line = d.file ? d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1 : undefined;
      const place = block ? `${block.page}:${block.line + (line ?? 0)}` : d.file ? `${d.file.fileName}:${line}` : '';
      return {
        page: block?.page,
        text: `${place} ${ts.flattenDiagnosticMessageText(d.messageText, '\n').split('\n')[0]}`,
      };
    });
    problemsOf = (page) => problems.filter((p) => p.page === undefined || p.page === page).map((p) => p.text);
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("are found in the installers' guide and the client's README", () => {
    expect(pages).toEqual(expect.arrayContaining(['docs/installers.md', 'clients/typescript/README.md']));
  });

  it.each(pages)('every ts block of %s type-checks', (page) => {
    expect(problemsOf(page)).toEqual([]);
  });
});
