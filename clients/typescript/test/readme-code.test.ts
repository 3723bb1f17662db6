/**
 * Every TypeScript code block of the root README and of this client's README type-checks against the
 * client's source, as an installer author would paste it (`@slowdns/activation-client` mapped to src/).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const readmes = ['README.md', 'clients/typescript/README.md'];

function codeBlocks(file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8');
  return [...text.matchAll(/^```(?:ts|typescript)\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

describe('README code blocks', () => {
  // One program for the blocks of both READMEs: type-checking the client's source and the DOM and Node
  // typings it needs is most of the work, done once; each test then reads the problems of its README.
  let problemsOf: (readme: string) => string[];
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'readme-blocks-'));
    // .mts: each block is an ES module of its own (top-level await, no shared names).
    const files = new Map<string, { readme: string; block: number }>();
    readmes.forEach((readme, r) =>
      codeBlocks(readme).forEach((text, i) => {
        const file = join(dir, `readme-${r + 1}-block-${i + 1}.mts`);
        writeFileSync(file, text);
        files.set(file, { readme, block: i + 1 });
      }),
    );
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
      typeRoots: [join(root, 'node_modules/@types')],
      paths: { '@slowdns/activation-client': [join(root, 'clients/typescript/src/index.ts')] },
    });
    const problems = ts.getPreEmitDiagnostics(program).map((d) => {
      // A problem outside the blocks (in the client's source, say) counts against every README.
      const where = d.file ? (files.get(d.file.fileName) ?? { readme: undefined, block: undefined }) : { readme: undefined, block: undefined };
      const line = d.file ? d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1 : undefined;
      const place = where.readme ? `${where.readme} block ${where.block}:${line}` : d.file ? `${d.file.fileName}:${line}` : '';
      return { readme: where.readme, text: `${place} ${ts.flattenDiagnosticMessageText(d.messageText, '\n').split('\n')[0]}` };
    });
    problemsOf = (readme) => problems.filter((p) => p.readme === undefined || p.readme === readme).map((p) => p.text);
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each(readmes)('every ts block of %s type-checks', (readme) => {
    expect(codeBlocks(readme).length).toBeGreaterThan(0);
    expect(problemsOf(readme)).toEqual([]);
  });

  it('the package carries the repository\'s LICENSE and ships it', () => {
    expect(readFileSync(join(root, 'clients/typescript/LICENSE'), 'utf8')).toBe(readFileSync(join(root, 'LICENSE'), 'utf8'));
    expect(JSON.parse(readFileSync(join(root, 'clients/typescript/package.json'), 'utf8')).files).toContain('LICENSE');
  });
});
