import { afterAll, beforeAll, expect, it } from 'vitest';
import { loseCreateAnswer } from '../support/lost-create-answer.js';
import { describeBehindPooler } from '../support/pooler.js';
import { createScratchDatabase, type ScratchDatabase } from '../support/scratch-database.js';
import { TEST_KEK } from '../support/spawn-service.js';

describeBehindPooler(
  'a create whose answer is lost after its COMMIT, behind a transaction-mode pooler (PgBouncer)',
  (poolerUrl) => {
    let scratch: ScratchDatabase;
    beforeAll(async () => {
      scratch = await createScratchDatabase(poolerUrl, 'slowdns_lost_answer_pooled');
    });
    afterAll(() => scratch?.drop());

    it('the retry with the same Idempotency-Key answers the stored secret, and one code exists', {
      timeout: 180_000,
    }, async () => {
      const lost = await loseCreateAnswer({ DATABASE_URL: scratch.url, KEY_ENCRYPTION_KEY: TEST_KEK });
      expect(lost.firstRequest).toMatch(/^network error/);
      expect(lost.retry).toMatchObject({ status: 201, replayed: 'true' });
      expect(lost.again.installCode).toBe(lost.retry.installCode);
      expect(lost.listed.map((code) => code.install_code_id)).toEqual([lost.retry.installCodeId]);
    });
  },
);
