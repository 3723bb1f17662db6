import { afterAll, beforeAll, beforeEach } from 'vitest';
import { approvalRaces } from '../support/approval-races.js';
import { describeBehindPooler } from '../support/pooler.js';
import { buildTestApp, testKeyRing, type TestApp } from '../support/test-app.js';
import { openTestDatabase } from '../support/test-database.js';

describeBehindPooler('approval races behind a transaction-mode pooler (PgBouncer)', (poolerUrl) => {
  let t: TestApp;
  beforeAll(async () => {
    t = buildTestApp(await openTestDatabase(poolerUrl), await testKeyRing());
  });
  beforeEach(() => t.reset());
  afterAll(() => t?.close());
  approvalRaces(() => t);
});
