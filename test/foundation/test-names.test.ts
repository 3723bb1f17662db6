import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === 'node_modules') return [];
    const path = join(dir, entry.name);
    return entry.isDirectory() ? testFiles(path) : entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

/** The identifier a call chain starts from: `it` for `it(…)`, `it.each(…)(…)` and `it.skipIf(…)(…)`. */
function calleeRoot(expression: ts.Expression): string {
  let node: ts.Node = expression;
  while (ts.isCallExpression(node) || ts.isPropertyAccessExpression(node)) node = node.expression;
  return ts.isIdentifier(node) ? node.text : '';
}

/** The literal name of every `it`/`test` in the suite, where it is written. */
function testNames(): { at: string; name: string }[] {
  const names: { at: string; name: string }[] = [];
  for (const file of [...testFiles(join(root, 'test')), ...testFiles(join(root, 'clients'))]) {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node) => {
      if (
        ts.isCallExpression(node) &&
        ['it', 'test'].includes(calleeRoot(node.expression)) &&
        node.arguments.length > 1
      ) {
        const [first] = node.arguments;
        if (first && (ts.isStringLiteralLike(first) || ts.isTemplateExpression(first))) {
          const line = source.getLineAndCharacterOfPosition(first.getStart()).line + 1;
          names.push({ at: `${relative(root, file)}:${line}`, name: first.getText(source) });
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return names;
}

describe('the names of the tests', () => {
  // Parsing every test file takes a second or two alone, over 30 s on a machine at load 20 (seen): the
  // file's own limit, not the suite's 30 s.
  it('each states one behaviour: none joins two with a semicolon', { timeout: 180_000 }, () => {
    const names = testNames();
    expect(names.length).toBeGreaterThan(500);
    expect(names.filter(({ name }) => name.includes(';'))).toEqual([]);
  });
});
