import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { errorCatalog, errorCodes } from '../../src/errors.js';

const readme = await readFile('README.md', 'utf8');
const section = (heading: string) => {
  const start = readme.indexOf(`\n## ${heading}\n`);
  expect(start, `README has a "## ${heading}" section`).toBeGreaterThan(-1);
  const end = readme.indexOf('\n## ', start + 4);
  return readme.slice(start, end === -1 ? undefined : end);
};

describe('the README stays true to the code', () => {
  it('lists every error code with the status the error map gives it', () => {
    const errors = section('Errors');
    for (const code of errorCodes) expect(errors).toMatch(new RegExp(`\\| ${errorCatalog[code].status} \\| \`${code}\` \\|`));
    const listed = [...errors.matchAll(/\| \d{3} \| `([a-z_]+)` \|/g)].map((m) => m[1]);
    expect(listed.sort()).toEqual([...errorCodes].sort());
  });

  it('documents every environment variable the configuration reads', async () => {
    const config = section('Configuration');
    // The service's own variables, and OpenTelemetry's standard ones it reads for tracing.
    const source = (await readFile('src/config.ts', 'utf8')) + (await readFile('src/tracing/settings.ts', 'utf8'));
    const variables = [...source.matchAll(/^ {2}([A-Z][A-Z0-9_]+): /gm)].map((m) => m[1]!);
    expect(variables.length).toBeGreaterThan(30);
    for (const name of variables) expect(config).toContain(`\`${name}\``);
  });

  it('documents every npm script', async () => {
    const scripts = section('npm scripts');
    const pkg = JSON.parse(await readFile('package.json', 'utf8')) as { scripts: Record<string, string> };
    for (const name of Object.keys(pkg.scripts)) expect(scripts).toMatch(new RegExp(`\`npm (run )?${name}\``));
  });
});
