import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loseCreateAnswer } from '../support/lost-create-answer.js';
import { createScratchDatabase, type ScratchDatabase } from '../support/scratch-database.js';
import { TEST_KEK } from '../support/spawn-service.js';

const adminUrl = process.env.DATABASE_URL;

/**
 * The real server, as `npm start` runs it: on a fresh database under DATABASE_URL (PostgreSQL, or PgBouncer
 * in CI's third pass), else on an embedded folder.
 */
describe('a create whose answer is lost after its COMMIT (kill -9), retried with its Idempotency-Key', {
  timeout: 180_000,
}, () => {
  let dir: string;
  let scratch: ScratchDatabase | undefined;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'slowdns-lost-answer-'));
    scratch = adminUrl ? await createScratchDatabase(adminUrl, 'slowdns_lost_answer') : undefined;
  });
  afterAll(async () => {
    await scratch?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the retry answers the stored secret, replayed, and the service holds that one code only', async () => {
    const env: Record<string, string> = scratch
      ? { DATABASE_URL: scratch.url, KEY_ENCRYPTION_KEY: TEST_KEK }
      : { DATA_DIR: join(dir, 'data') };
    const lost = await loseCreateAnswer(env);
    expect(lost.firstRequest).toMatch(/^network error/);
    expect(lost.retry).toMatchObject({
      status: 201,
      replayed: 'true',
      installCode: expect.stringMatching(/^SDNS-SD-/),
    });
    expect(lost.again).toEqual({ status: 201, installCode: lost.retry.installCode });
    expect(lost.listed).toHaveLength(1);
    expect(lost.listed[0]!.install_code_id).toBe(lost.retry.installCodeId);
    expect(lost.retry.installCode.endsWith(lost.listed[0]!.install_code_hint.split('…')[1]!)).toBe(true);
  });
});
