import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadPageLanguages } from '../../../src/page/i18n/page-languages.js';
import { useTestApp } from '../../support/test-app.js';

/** What the page's scripts call: every error code these answer must be said in the page's words. */
const PAGE_OPERATIONS = [
  'issueInstallCode',
  'getInstallCodeStatus',
  'approveInstallCodePrecheck',
  'denyInstallCodePrecheck',
  'cancelInstallCode',
];

type Operation = {
  operationId?: string;
  responses?: Record<string, { content?: Record<string, { examples?: Record<string, unknown> }> }>;
};

describe("the API's error codes on the page", () => {
  const t = useTestApp();

  it('each have words in every language, for every code the operations the page calls may answer', () => {
    const operations = Object.values(t.document.paths ?? {}).flatMap((item) =>
      Object.values(item as Record<string, Operation>).filter((op) => PAGE_OPERATIONS.includes(op?.operationId ?? '')),
    );
    expect(operations.map((op) => op.operationId).sort()).toEqual([...PAGE_OPERATIONS].sort());
    const codes = new Set(
      operations.flatMap((op) =>
        Object.entries(op.responses ?? {})
          .filter(([status]) => Number(status) >= 400)
          .flatMap(([, response]) => Object.keys(response.content?.['application/json']?.examples ?? {})),
      ),
    );
    expect(codes.size).toBeGreaterThan(10);
    for (const language of loadPageLanguages()) {
      const missing = [...codes, 'unknown'].filter((code) => language.messages[`error.${code}`] === undefined);
      expect(missing, language.tag).toEqual([]);
    }
  });

  it("are never shown as the API's English message: no page script reads it", () => {
    for (const script of ['app.js', 'watch.js', 'approval.js', 'page-kit.js']) {
      const source = readFileSync(new URL(`../../../src/page/${script}`, import.meta.url), 'utf8');
      expect(source, script).not.toMatch(/error\??\.message/);
    }
  });
});
