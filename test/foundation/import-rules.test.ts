import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The house's rules, read from the sources with TypeScript's own parser: which room may import which, and no
 * circle of imports. A rule broken names the importing file and the import, so the failure says what to move.
 */

const root = resolve(import.meta.dirname, '../..');
/** The server's sources and the TypeScript client's: both are read by people who did not write them. */
const sourceRoots = [join(root, 'src'), join(root, 'clients/typescript/src')];

interface Import {
  /** The importing file and the imported one, both relative to the repository (`src/domain/x.ts`). */
  from: string;
  to: string;
  /** `import type`, `import { type A }` with every name a type, `export type … from`: gone once compiled. */
  typeOnly: boolean;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|js)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** A relative specifier as NodeNext resolves it here: `./x.js` is `x.ts` when that exists, else the `.js` itself. */
function resolveSpecifier(fromFile: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const target = resolve(dirname(fromFile), specifier);
  const candidates = [target.replace(/\.js$/, '.ts'), target, `${target}.ts`, join(target, 'index.ts')];
  return candidates.find((path) => statSync(path, { throwIfNoEntry: false })?.isFile());
}

function isTypeOnly(node: ts.ImportDeclaration | ts.ExportDeclaration): boolean {
  if (ts.isExportDeclaration(node)) {
    if (node.isTypeOnly) return true;
    const clause = node.exportClause;
    return (
      !!clause && ts.isNamedExports(clause) && clause.elements.length > 0 && clause.elements.every((e) => e.isTypeOnly)
    );
  }
  const clause = node.importClause;
  if (!clause) return false; // `import './x.js'` runs the module
  if (clause.isTypeOnly) return true;
  if (clause.name) return false;
  const bindings = clause.namedBindings;
  return (
    !!bindings &&
    ts.isNamedImports(bindings) &&
    bindings.elements.length > 0 &&
    bindings.elements.every((e) => e.isTypeOnly)
  );
}

/** Every relative import of a file: static imports and re-exports (type-only marked), and `import('…')`. */
function importsOf(file: string): Import[] {
  const text = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: { specifier: string; typeOnly: boolean }[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
      if (ts.isStringLiteral(node.moduleSpecifier))
        found.push({ specifier: node.moduleSpecifier.text, typeOnly: isTypeOnly(node) });
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      found.push({ specifier: node.arguments[0].text, typeOnly: false });
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      const literal = node.argument.literal;
      if (ts.isStringLiteral(literal)) found.push({ specifier: literal.text, typeOnly: true });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found.flatMap(({ specifier, typeOnly }) => {
    const target = resolveSpecifier(file, specifier);
    return target ? [{ from: relative(root, file), to: relative(root, target), typeOnly }] : [];
  });
}

/** The browser's scripts: plain `.js` files served as they are, never imported by the server. */
const isBrowserScript = (path: string) => /^src\/(page|console)\/[^/]+\.js$/.test(path);

interface Rule {
  name: string;
  from: (path: string) => boolean;
  to: (path: string) => boolean;
  /** Whether a type-only import breaks the rule too. */
  typesToo: boolean;
}

const under =
  (...prefixes: string[]) =>
  (path: string) =>
    prefixes.some((p) => path === p || path.startsWith(p));

const rules: Rule[] = [
  {
    name: 'src/domain holds rules with no HTTP, wire schema or environment in them',
    from: under('src/domain/'),
    to: under('src/http/', 'src/routes/', 'src/schemas/', 'src/config.ts'),
    typesToo: false,
  },
  {
    name: 'src/schemas describe the wire, not the request',
    from: under('src/schemas/'),
    to: under('src/http/'),
    typesToo: true,
  },
  {
    name: 'src/tracing takes the request types from src/http/app-env.ts, not the router',
    from: under('src/tracing/'),
    to: under('src/http/router.ts'),
    typesToo: true,
  },
  {
    name: "the server never imports the browser's scripts (they are served as files)",
    from: (path) => !isBrowserScript(path),
    to: isBrowserScript,
    typesToo: true,
  },
];

function brokenRules(imports: Import[]): string[] {
  return rules.flatMap((rule) =>
    imports
      .filter((i) => rule.from(i.from) && rule.to(i.to) && (rule.typesToo || !i.typeOnly))
      .map((i) => `${rule.name}: ${i.from} imports ${i.to}${i.typeOnly ? ' (types only)' : ''}`),
  );
}

/** Circles of imports (Tarjan's strongly connected components), type-only imports included, as file lists. */
function importCircles(imports: Import[]): string[][] {
  const edges = new Map<string, string[]>();
  for (const { from, to } of imports) edges.set(from, [...(edges.get(from) ?? []), to]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  let next = 0;
  const connect = (node: string): void => {
    index.set(node, next);
    low.set(node, next);
    next += 1;
    stack.push(node);
    onStack.add(node);
    for (const target of edges.get(node) ?? []) {
      if (!index.has(target)) {
        connect(target);
        low.set(node, Math.min(low.get(node)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(node, Math.min(low.get(node)!, index.get(target)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) circles.push(component.sort());
  };
  for (const node of [...edges.keys()].sort()) if (!index.has(node)) connect(node);
  return circles;
}

const imports = sourceRoots.flatMap(sourceFiles).flatMap(importsOf);

describe('import rules of src/', () => {
  it('reads the imports of the sources (the check sees the house it checks)', () => {
    expect(imports.some((i) => i.from === 'src/app.ts' && i.to === 'src/deps.ts')).toBe(true);
    expect(imports.some((i) => i.from.startsWith('src/domain/') && i.typeOnly)).toBe(true);
    expect(imports.some((i) => i.from === 'clients/typescript/src/run-install.ts')).toBe(true);
  });

  it('breaks none of the rooms’ rules', () => {
    expect(brokenRules(imports)).toEqual([]);
  });

  // Two files that import each other are one concept split in two, or two concepts tangled: either way a reader
  // cannot read one without the other. What both need goes into a third file they both import.
  it('has no import circle, not even of two files, type-only imports included', () => {
    expect(importCircles(imports)).toEqual([]);
  });

  it('finds a planted circle and a planted broken rule (the check can fail)', () => {
    const planted: Import[] = [
      { from: 'src/domain/a.ts', to: 'src/schemas/b.ts', typeOnly: true },
      { from: 'src/schemas/b.ts', to: 'src/http/c.ts', typeOnly: true },
      { from: 'src/http/c.ts', to: 'src/domain/a.ts', typeOnly: false },
    ];
    expect(importCircles(planted)).toEqual([['src/domain/a.ts', 'src/http/c.ts', 'src/schemas/b.ts']]);
    expect(brokenRules(planted)).toEqual([
      'src/schemas describe the wire, not the request: src/schemas/b.ts imports src/http/c.ts (types only)',
    ]);
    expect(brokenRules([{ from: 'src/domain/a.ts', to: 'src/config.ts', typeOnly: false }])).toHaveLength(1);
    const pair: Import[] = [
      { from: 'src/db/a.ts', to: 'src/db/b.ts', typeOnly: true },
      { from: 'src/db/b.ts', to: 'src/db/a.ts', typeOnly: false },
    ];
    expect(importCircles(pair)).toEqual([['src/db/a.ts', 'src/db/b.ts']]);
  });
});
