import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { installCodes } from '../../src/db/schema.js';
import { prepareDatabase } from '../../src/prepare-database.js';
import { createLogger } from '../../src/logger.js';
import { issue, newBrowser, precheckRequest, randomMachine } from '../support/install-flow.js';
import { TEST_KEK } from '../support/spawn-service.js';
import { buildTestApp, useTestApp } from '../support/test-app.js';
import { ADMIN_TOKEN, createCode, enroll } from './fleet-requests.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const KEK = Buffer.from(TEST_KEK, 'base64url');

/** DESIGN §23: a code is a guessable secret beside its hint; with a KEK its stored hash is keyed, as the others are. */
describe('install code hashes under KEY_ENCRYPTION_KEY', () => {
  const t = useTestApp({ ADMIN_TOKEN });

  const storedHashes = async () =>
    Object.fromEntries((await t.database.db.select().from(installCodes)).map((row) => [row.id, row.codeHash] as const));

  /** The service's start on this database with a KEK: migrations, then what is kept before the KEK keyed under it. */
  const startWithKek = () =>
    prepareDatabase(t.database, {
      keys: t.keys,
      keyStore: { kek: KEK, requireEncryption: false, verifyWindowSeconds: 86_400 },
      clock: t.clock,
      logger: createLogger('error', () => {}),
      label: 'test',
      stopping: () => false,
    });

  it('with a KEK, a fleet code is stored under a keyed hash, not its SHA-256, and enrolls machines', async () => {
    const keyed = buildTestApp(t.database, t.keys, { ADMIN_TOKEN, KEY_ENCRYPTION_KEY: TEST_KEK }, t.clock);
    const { install_code: code, install_code_id: id } = await createCode(keyed, { uses: 2 });
    const stored = (await storedHashes())[id]!;
    expect(stored).not.toBe(sha256(code));
    expect(stored).not.toContain(sha256(code));
    expect((await enroll(keyed, code, { address: '198.51.100.1' })).status).toBe(200);
  });

  it('codes stored before the KEK was set keep working once the service starts with one, and are keyed then', async () => {
    const { install_code: fleet, install_code_id: fleetId } = await createCode(t, { uses: 3 });
    const browser = await newBrowser(t);
    const page = await issue(t, browser);
    expect(await storedHashes()).toEqual({ [fleetId]: sha256(fleet), [page.id]: sha256(page.code) });

    await startWithKek();
    const after = await storedHashes();
    expect(after[fleetId]).not.toBe(sha256(fleet));
    expect(after[page.id]).not.toBe(sha256(page.code));
    await startWithKek();
    expect(await storedHashes()).toEqual(after);

    const keyed = buildTestApp(t.database, t.keys, { ADMIN_TOKEN, KEY_ENCRYPTION_KEY: TEST_KEK }, t.clock);
    expect((await enroll(keyed, fleet, { address: '198.51.100.2' })).status).toBe(200);
    expect((await precheckRequest(keyed, page.code, randomMachine())).status).toBe(200);
  });
});
