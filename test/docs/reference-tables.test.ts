/**
 * The guides' reference tables stay true to the code they describe: error codes and statuses, the
 * environment variables, the npm scripts, the scripts/ folder, the shell client's exit codes, the
 * supported Node versions, the guides the OpenAPI document names, and the event types.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../src/domain/events/event-trail.js';
import { errorCatalog, errorCodes } from '../../src/errors.js';
import { blocksOf, configurationVariables, docPages, readPage, repoRoot } from './doc-blocks.js';

/** A `## heading` section of a page, up to the next `## `. */
function section(page: string, heading: string): string {
  const text = readPage(page);
  const start = text.indexOf(`\n## ${heading}\n`);
  expect(start, `${page} has a "## ${heading}" section`).toBeGreaterThan(-1);
  const end = text.indexOf('\n## ', start + 4);
  return text.slice(start, end === -1 ? undefined : end);
}

/** The exit code of each service error code, from the one place in activate.sh that maps them. */
function shellExitCodes(): Map<string, number> {
  const script = readFileSync(join(repoRoot, 'clients/shell/activate.sh'), 'utf8');
  const body = /exit_code_for\(\) \{\n {2}case "\$1" in\n([\s\S]*?)\n {2}esac/.exec(script)![1]!;
  const codes = new Map<string, number>();
  for (const m of body.matchAll(/^\s*([a-z_ |*]+)\) echo (\d+) ;;$/gm)) {
    for (const name of m[1]!.split('|').map((n) => n.trim())) codes.set(name, Number(m[2]));
  }
  return codes;
}

/**
 * The event types the first cells of a section's table name. A cell may name several, and a type written
 * `.verb` takes the object of the type before it in its cell (`webhook_endpoint.created`, `.paused`).
 */
function tableEventTypes(table: string): string[] {
  return [...table.matchAll(/^\| (`[^|]*`[^|]*?) +\|/gm)].flatMap((row) => {
    let object = '';
    return [...row[1]!.matchAll(/`([a-z_]*)\.([a-z_]+)`/g)].map(([, named, verb]) => {
      object = named || object;
      return `${object}.${verb}`;
    });
  });
}

/** What a table of event types lacks and what it names that is no type, by name. */
function eventTableDifferences(listed: string[], types: readonly string[]) {
  return {
    missing: types.filter((type) => !listed.includes(type)),
    unknown: listed.filter((type) => !types.includes(type)),
  };
}

describe('the reference tables of the guides', () => {
  it('docs/integrators.md lists every error code with the status the error map gives it', () => {
    const errors = section('docs/integrators.md', 'Errors');
    for (const code of errorCodes)
      expect(errors).toMatch(new RegExp(`\\| ${errorCatalog[code].status} +\\| \`${code}\` +\\|`));
    const listed = [...errors.matchAll(/\| \d{3} +\| `([a-z_]+)` +\|/g)].map((m) => m[1]);
    expect(listed.sort()).toEqual([...errorCodes].sort());
  });

  it('docs/configuration.md documents every environment variable the configuration reads', () => {
    // Each in the first cell of a row of its section's table (OpenTelemetry's pairs share a row: `A`, `B`).
    const rows = (heading: string) =>
      [...section('docs/configuration.md', heading).matchAll(/^\| ([^|]+) \|/gm)].map((m) => m[1]!);
    const documented = new Set(
      [...rows('The service'), ...rows('Traces')].flatMap((cell) =>
        [...cell.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]!),
      ),
    );
    const variables = configurationVariables();
    expect(variables.length).toBeGreaterThan(30);
    expect(variables.filter((name) => !documented.has(name))).toEqual([]);
  });

  it('docs/development.md documents every npm script', () => {
    const scripts = section('docs/development.md', 'npm scripts');
    const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    for (const name of Object.keys(pkg.scripts)) expect(scripts).toMatch(new RegExp(`\`npm (run )?${name}\``));
  });

  it('the layout in docs/development.md names every script in scripts/, and every file it names exists', () => {
    const layout = blocksOf('docs/development.md').find(
      (b) => b.language === 'text' && b.text.includes('src/main.ts'),
    )!.text;
    for (const script of readdirSync(join(repoRoot, 'scripts'))) expect(layout).toContain(`scripts/${script}`);
    const named = [...layout.matchAll(/^([\w./-]+\/[\w.-]+\.[a-z]+)\s/gm)].map((m) => m[1]!);
    expect(named.length).toBeGreaterThan(10);
    for (const file of named) expect(() => readFileSync(join(repoRoot, file)), file).not.toThrow();
  });

  it("docs/operators.md's event table names every event type, and nothing else", () => {
    const listed = tableEventTypes(section('docs/operators.md', 'The event trail'));
    expect(listed.length).toBeGreaterThan(20);
    expect(eventTableDifferences(listed, EVENT_TYPES)).toEqual({ missing: [], unknown: [] });
  });

  it('the event table check names the types a planted table lacks and the rows that are no type', () => {
    const planted = [
      '| type | written by |',
      '| --- | --- |',
      '| `install_code.issued` | issue |',
      '| `webhook_endpoint.created`, `.paused` | an operator |',
      '| `install_code.misspelt` | nobody |',
    ].join('\n');
    expect(tableEventTypes(planted)).toEqual([
      'install_code.issued',
      'webhook_endpoint.created',
      'webhook_endpoint.paused',
      'install_code.misspelt',
    ]);
    expect(
      eventTableDifferences(tableEventTypes(planted), [
        'install_code.issued',
        'install_code.revoked',
        'webhook_endpoint.created',
        'webhook_endpoint.paused',
      ]),
    ).toEqual({ missing: ['install_code.revoked'], unknown: ['install_code.misspelt'] });
  });

  it("both tables of the shell client's exit codes agree with the script that maps them", () => {
    const mapped = shellExitCodes();
    for (const page of ['docs/installers.md', 'clients/shell/README.md']) {
      const rows = [...readPage(page).matchAll(/^\| (\d+) +\|[^|]+\|([^|]*)\|$/gm)];
      expect(rows.length, page).toBeGreaterThan(10);
      for (const [, exit, codes] of rows) {
        for (const code of codes!.matchAll(/`([a-z_]+)`/g)) {
          expect({ page, code: code[1], exit: Number(exit) }).toEqual({
            page,
            code: code[1],
            exit: mapped.get(code[1]!) ?? mapped.get('*'),
          });
        }
      }
      // Every code the script maps by name is in the table (the rest fall to 31, "…").
      const listed = rows.flatMap(([, , codes]) => [...codes!.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]));
      expect(listed, page).toEqual(
        expect.arrayContaining([...mapped.keys()].filter((c) => c !== '*' && c !== 'network')),
      );
    }
  });

  it("the OpenAPI document's introduction names every guide", () => {
    const document = JSON.parse(readFileSync(join(repoRoot, 'openapi/openapi.json'), 'utf8')) as {
      info: { description: string };
    };
    // docs/measurements.md is no reader's guide but the bench's record, reached from docs/development.md.
    for (const guide of docPages.filter((p) => p.startsWith('docs/') && p !== 'docs/measurements.md'))
      expect(document.info.description).toContain(`\`${guide}\``);
  });

  it('the README states the Node versions package.json supports', () => {
    const engines = (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { engines: { node: string } })
      .engines.node;
    expect(engines).toBe('^20.19.0 || ^22.12.0 || >=24.0.0');
    const quickStart = section('README.md', 'Quick start');
    for (const version of ['22.12+', '24', '20.19+']) expect(quickStart).toContain(version);
  });
});
