/**
 * Every `sh` and `ts` block of the README and the guides that is not marked `no-run` runs against a
 * started service (the real process, as `npm start` runs it, on a fresh database), and its output is
 * compared with the `output` block that follows it, if any. A wrong example fails here.
 */
import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createScratchDatabase, type ScratchDatabase } from '../support/scratch-database.js';
import { spawnService, TEST_KEK, type SpawnedService } from '../support/spawn-service.js';
import {
  blocksOf,
  docPages,
  expectedOutput,
  repoRoot,
  runs,
  where,
  wildcardPattern,
  type DocBlock,
} from './doc-blocks.js';
import { openDocSession, type DocSession } from './doc-session.js';

const adminUrl = process.env.DATABASE_URL;
const SERVICE_TIMEOUT_MS = 180_000;

/** An expected JSON value with `…` in strings as wildcards, as a matcher. */
function jsonMatcher(expected: unknown): unknown {
  if (typeof expected === 'string')
    return expected.includes('…') ? expect.stringMatching(wildcardPattern(expected)) : expected;
  if (Array.isArray(expected)) return expected.map(jsonMatcher);
  if (expected && typeof expected === 'object')
    return Object.fromEntries(Object.entries(expected).map(([k, v]) => [k, jsonMatcher(v)]));
  return expected;
}

function expectOutput(block: DocBlock, stdout: string, expected: DocBlock): void {
  if (expected.language === 'json') {
    let actual: unknown;
    try {
      actual = JSON.parse(stdout);
    } catch {
      expect.fail(`${where(block)} printed no JSON, the doc shows JSON (${where(expected)}):\n${stdout}`);
    }
    expect(actual, `${where(block)}: its output against ${where(expected)}`).toEqual(
      jsonMatcher(JSON.parse(expected.text)),
    );
    return;
  }
  const lines = (text: string) =>
    text
      .replace(/\s+$/, '')
      .split('\n')
      .map((line) => line.trimEnd());
  const actual = lines(stdout);
  const wanted = lines(expected.text);
  const matches = actual.length === wanted.length && wanted.every((line, i) => wildcardPattern(line).test(actual[i]!));
  expect(
    matches,
    `${where(block)}: its output against ${where(expected)}\n--- shown\n${wanted.join('\n')}\n--- printed\n${actual.join('\n')}`,
  ).toBe(true);
}

/** Untracked or changed files of the checkout: a page's blocks must leave none behind. */
const checkoutChanges = () =>
  execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: repoRoot, encoding: 'utf8' });

for (const page of docPages) {
  const blocks = blocksOf(page);
  const running = blocks.filter(runs);
  describe.skipIf(running.length === 0)(`the examples of ${page}`, { timeout: SERVICE_TIMEOUT_MS }, () => {
    let scratch: ScratchDatabase | undefined;
    let service: SpawnedService;
    let session: DocSession;
    let before: string;
    beforeAll(async () => {
      before = checkoutChanges();
      const adminToken = randomBytes(32).toString('hex');
      scratch = adminUrl
        ? await createScratchDatabase(adminUrl, 'slowdns_docs', inject('templateDatabase'))
        : undefined;
      service = spawnService({
        ADMIN_TOKEN: adminToken,
        ...(scratch ? { DATABASE_URL: scratch.url, KEY_ENCRYPTION_KEY: TEST_KEK } : { DATA_DIR: 'memory://' }),
      });
      const port = await service.port;
      await service.logged('ready');
      session = openDocSession({ serviceUrl: `http://127.0.0.1:${port}`, adminToken });
    }, SERVICE_TIMEOUT_MS);
    afterAll(async () => {
      session?.close();
      await service?.stop();
      await scratch?.drop();
    });

    for (const block of running) {
      it(`${where(block)} (${block.language}) runs${expectedOutput(blocks, block) ? ' and prints what the page shows' : ''}`, async () => {
        const { code, stdout, stderr } = await session.run(block);
        expect(code, `${where(block)} failed:\n--- stdout\n${stdout}\n--- stderr\n${stderr}`).toBe(0);
        const expected = expectedOutput(blocks, block);
        if (expected) expectOutput(block, stdout, expected);
      });
    }

    it('leaves the checkout as it found it', () => {
      expect(checkoutChanges()).toBe(before);
    });
  });
}
