/**
 * The trust codes of docs/installers.md ("Enrolling with the platform's identity", DESIGN §25): each `json` block
 * with a `trust` block is a whole create body, and the service creates a code from it as written: 201, no secret,
 * no warning (the guide pins ids, never only names an owner can rename). Nothing is fetched at creation.
 */
import { describe, expect, it } from 'vitest';
import { createCodeRequest } from '../fleet-codes/fleet-requests.js';
import { useTestApp } from '../support/test-app.js';
import { blocksOf, isOutput, where } from './doc-blocks.js';

const trustBlocks = blocksOf('docs/installers.md').filter(
  (block) => block.language === 'json' && !isOutput(block) && 'trust' in JSON.parse(block.text),
);

describe('the trust blocks of the installers guide', () => {
  const t = useTestApp({ ADMIN_TOKEN: 'operator-secret-0123456789abcdef0123456789' });

  it('are one for each platform the guide shows', () => {
    const issuers = trustBlocks.map((block) => JSON.parse(block.text).trust.issuer);
    expect(issuers).toEqual([
      'https://token.actions.githubusercontent.com',
      'https://gitlab.com',
      'https://kubernetes.default.svc.cluster.local',
      'https://accounts.google.com',
    ]);
  });

  it.each(trustBlocks.map((block) => [where(block), block] as const))(
    '%s creates a code with no secret and no warning',
    async (_at, block) => {
      const body = JSON.parse(block.text);
      const res = await createCodeRequest(t, body);
      const answer = await res.json();
      expect(answer.error).toBeUndefined();
      expect(res.status).toBe(201);
      expect(answer.data).toMatchObject({ install_code: null, warnings: [] });
      expect(answer.data.trust).toMatchObject({ ...body.trust, max_lifetime_seconds: expect.any(Number) });
    },
  );
});
