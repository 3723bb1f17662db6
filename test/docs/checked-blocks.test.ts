/**
 * What the doc tests check without running (docs/development.md, "Doc tests"): every block's info
 * string, shellcheck on every shell block, JSON and YAML parsed, the recipes' variables and files, the
 * diagrams' type.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import {
  blocksOf,
  configurationVariables,
  docPages,
  grammarProblems,
  isOutput,
  repoRoot,
  runs,
  where,
  type DocBlock,
} from './doc-blocks.js';

const pages = docPages.map((page) => ({ page, blocks: blocksOf(page) }));
const all = pages.flatMap(({ blocks }) => blocks);
const ofLanguage = (language: string) => all.filter((b) => b.language === language && !isOutput(b));

// SC2164 (`cd` without `|| exit`): a reader's terminal shows a failing cd, and the blocks run under set -e.
const SHELLCHECK_EXCLUDED = 'SC2164';

/** shellcheck's findings in a script made of blocks, each pointed back to its page and line. */
function shellcheck(parts: DocBlock[]): string[] {
  let script = '#!/bin/sh\n';
  const starts: { block: DocBlock; line: number }[] = [];
  for (const block of parts) {
    starts.push({ block, line: script.split('\n').length });
    script += block.text;
  }
  let output: string;
  try {
    output = execFileSync('shellcheck', ['-s', 'sh', '-f', 'gcc', '-e', SHELLCHECK_EXCLUDED, '-'], {
      input: script,
      encoding: 'utf8',
    });
  } catch (error) {
    output = (error as { stdout?: string }).stdout ?? String(error);
  }
  return output
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const m = /^-:(\d+):(\d+): (.*)$/.exec(line);
      if (!m) return line;
      const at = Number(m[1]);
      const start = starts.filter((s) => s.line <= at).at(-1)!;
      return `${start.block.page}:${start.block.line + at - start.line + 1}:${m[2]}: ${m[3]}`;
    });
}

describe('the blocks of the README and the guides', () => {
  it('each has a known language and words, and an output block follows a block that runs', () => {
    expect(pages.flatMap(({ blocks }) => grammarProblems(blocks))).toEqual([]);
  });

  it('every shell block passes shellcheck, the blocks of a page that run checked as the one session they form', () => {
    const problems = pages.flatMap(({ blocks }) => {
      const shell = blocks.filter((b) => b.language === 'sh');
      const session = shell.filter(runs);
      return [
        ...(session.length ? shellcheck(session) : []),
        ...shell.filter((b) => !runs(b)).flatMap((b) => shellcheck([b])),
      ];
    });
    expect(problems).toEqual([]);
  });

  it('every JSON block parses', () => {
    const problems = ofLanguage('json').flatMap((block) => {
      try {
        JSON.parse(block.text);
        return [];
      } catch (error) {
        return [`${where(block)}: ${(error as Error).message}`];
      }
    });
    expect(problems).toEqual([]);
  });

  it('every JSON output block parses, so that it can be compared as data', () => {
    const problems = all
      .filter((b) => isOutput(b) && b.language === 'json')
      .flatMap((block) => {
        try {
          JSON.parse(block.text);
          return [];
        } catch (error) {
          return [`${where(block)}: ${(error as Error).message}`];
        }
      });
    expect(problems).toEqual([]);
  });

  it('every YAML block parses', () => {
    expect(ofLanguage('yaml').length).toBeGreaterThan(0);
    for (const block of ofLanguage('yaml')) expect(() => parseYaml(block.text), where(block)).not.toThrow();
  });

  it('the systemd unit, the environment file and the container recipe set only variables the service reads, and name files the build makes', () => {
    // The guides' blocks, and the files they install: the Dockerfile and the unit.
    const files = ['Dockerfile', 'deploy/slowdns.service'].map(
      (page): DocBlock => ({
        page,
        line: 1,
        language: 'ini',
        words: [],
        text: readFileSync(join(repoRoot, page), 'utf8'),
      }),
    );
    const recipes = [...ofLanguage('ini'), ...ofLanguage('dockerfile'), ...files];
    expect(recipes.length).toBeGreaterThan(0);
    const known = new Set(configurationVariables());
    const problems = recipes.flatMap((block) => {
      const set = new Set<string>();
      for (const line of block.text.split('\n')) {
        // `NAME=value` of an environment file, `Environment=A=1 B=2` of a unit, `ENV A=1 B=2` of a Dockerfile.
        const assignments =
          /^(?:Environment=|ENV\s+)(.*)$/.exec(line)?.[1] ??
          (/^[A-Z][A-Z0-9_]*=/.test(line) && !/^\[/.test(line) ? line : undefined);
        for (const m of assignments?.matchAll(/(?:^|\s)([A-Z][A-Z0-9_]*)=/g) ?? []) set.add(m[1]!);
      }
      const unknown = [...set]
        .filter((name) => !known.has(name))
        .map((name) => `${where(block)}: ${name} is not a variable the service reads`);
      const files = [...block.text.matchAll(/\b((?:dist|src|scripts|bin)\/[\w./-]+\.(?:js|mjs|ts|sh))\b/g)].map(
        (m) => m[1]!,
      );
      const missing = files
        .filter((file) => !existsSync(join(repoRoot, file)))
        .map((file) => `${where(block)}: ${file} does not exist after the build`);
      return [...unknown, ...missing];
    });
    expect(problems).toEqual([]);
  });

  it('every diagram declares its type', () => {
    for (const block of ofLanguage('mermaid')) {
      expect(block.text.trimStart(), where(block)).toMatch(
        /^(sequenceDiagram|flowchart|graph|stateDiagram-v2|classDiagram|erDiagram)\b/,
      );
    }
  });
});
