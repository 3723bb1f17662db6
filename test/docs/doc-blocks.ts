/**
 * The fenced blocks of the documentation, as the doc tests read them (docs/development.md, "Doc tests"):
 * a block's info string is its language, then words (`no-run`, `output`).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/** The README and the guides: every example in them is run or checked. */
export const docPages: string[] = [
  'README.md',
  ...readdirSync(join(repoRoot, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
];

/** The clients' own manuals: their links and TypeScript blocks are checked too. */
export const clientManuals = ['clients/shell/README.md', 'clients/typescript/README.md'];

const languages = ['sh', 'ts', 'json', 'yaml', 'ini', 'dockerfile', 'mermaid', 'text'] as const;
const words = ['no-run', 'output'];

export interface DocBlock {
  /** The page, relative to the repository. */
  page: string;
  /** The line of the opening fence (1-based). */
  line: number;
  language: string;
  words: string[];
  text: string;
}

export const where = (block: DocBlock) => `${block.page}:${block.line}`;

export function readPage(page: string): string {
  return readFileSync(join(repoRoot, page), 'utf8');
}

/** Every fenced block of a page, in order. */
export function blocksOf(page: string): DocBlock[] {
  const lines = readPage(page).split('\n');
  const blocks: DocBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^( {0,3})(`{3,})\s*(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const [, indent, fence, info] = open;
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && !new RegExp(`^ {0,3}${fence}\`*\\s*$`).test(lines[j]!))
      body.push(lines[j++]!.slice(indent!.length));
    const [language = '', ...rest] = info!.trim().split(/\s+/).filter(Boolean);
    blocks.push({ page, line: i + 1, language, words: rest, text: `${body.join('\n')}\n` });
    i = j;
  }
  return blocks;
}

export const isOutput = (block: DocBlock) => block.words.includes('output');
/** A block the tests run: shell or TypeScript, not marked `no-run`. */
export const runs = (block: DocBlock) =>
  (block.language === 'sh' || block.language === 'ts') && !block.words.includes('no-run') && !isOutput(block);

/** What is wrong with a block's info string, or with where an `output` block stands. */
export function grammarProblems(blocks: DocBlock[]): string[] {
  const problems: string[] = [];
  blocks.forEach((block, i) => {
    if (!(languages as readonly string[]).includes(block.language))
      problems.push(`${where(block)}: language "${block.language}" is not one of ${languages.join(', ')}`);
    for (const word of block.words) if (!words.includes(word)) problems.push(`${where(block)}: unknown word "${word}"`);
    if (isOutput(block) && !(i > 0 && runs(blocks[i - 1]!)))
      problems.push(`${where(block)}: an output block must follow a block that runs`);
    if (block.words.includes('no-run') && block.language !== 'sh' && block.language !== 'ts')
      problems.push(`${where(block)}: only sh and ts blocks run, so only they take no-run`);
  });
  return problems;
}

/** The expected output that follows a block, if any. */
export function expectedOutput(blocks: DocBlock[], block: DocBlock): DocBlock | undefined {
  const next = blocks[blocks.indexOf(block) + 1];
  return next && isOutput(next) ? next : undefined;
}

/** `…` stands for any text; everything else is literal. */
export function wildcardPattern(expected: string): RegExp {
  return new RegExp(
    `^${expected
      .split('…')
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
    's',
  );
}

/** The variables the service reads: the keys of config.ts's schema, and OpenTelemetry's standard ones tracing reads. */
export function configurationVariables(): string[] {
  const source = ['src/config.ts', 'src/tracing/settings.ts']
    .map((file) => readFileSync(join(repoRoot, file), 'utf8'))
    .join('\n');
  return [...source.matchAll(/^ {2}([A-Z][A-Z0-9_]+): /gm)].map((m) => m[1]!);
}
