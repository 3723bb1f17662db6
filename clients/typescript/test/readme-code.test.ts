/**
 * Every TypeScript code block of the root README and of this client's README type-checks against the
 * client's source, as an installer author would paste it (`@slowdns/activation-client` mapped to src/).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const readmes = ['README.md', 'clients/typescript/README.md'];

function codeBlocks(file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8');
  return [...text.matchAll(/^```(?:ts|typescript)\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

describe('README code blocks', () => {
  it.each(readmes)('every ts block of %s type-checks', (readme) => {
    const blocks = codeBlocks(readme);
    expect(blocks.length).toBeGreaterThan(0);
    const dir = mkdtempSync(join(tmpdir(), 'readme-blocks-'));
    try {
      // .mts: each block is an ES module of its own (top-level await, no shared names).
      const files = blocks.map((block, i) => {
        const file = join(dir, `block-${i + 1}.mts`);
        writeFileSync(file, block);
        return file;
      });
      const program = ts.createProgram(files, {
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
      const problems = ts
        .getPreEmitDiagnostics(program)
        .map((d) => `${d.file ? `${d.file.fileName.replace(dir, readme)}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}` : ''} ${ts.flattenDiagnosticMessageText(d.messageText, '\n').split('\n')[0]}`);
      expect(problems).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('the package carries the repository\'s LICENSE and ships it', () => {
    expect(readFileSync(join(root, 'clients/typescript/LICENSE'), 'utf8')).toBe(readFileSync(join(root, 'LICENSE'), 'utf8'));
    expect(JSON.parse(readFileSync(join(root, 'clients/typescript/package.json'), 'utf8')).files).toContain('LICENSE');
  });
});
