import { createHmac, hkdfSync } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { consoleSessions, events } from '../../src/db/schema.js';
import { generateKeyEncryptionKey } from '../../src/domain/tokens/key-encryption.js';
import { keyedHashes } from '../../src/domain/tokens/keyed-hashes.js';
import { sha256Hex } from '../../src/domain/tokens/secret-hash.js';
import { consolePage, signIn } from '../console/console-support.js';
import { ADMIN_TOKEN } from '../admin/admin-requests.js';
import { usageOf } from '../rate-limits/override-support.js';
import { bucketRows, expectRateLimited, issueFrom } from '../rate-limits/rate-limit-support.js';
import { activatedInstall, browserAt, releaseRequest } from '../support/install-flow.js';
import { buildTestApp, createTestApp, type TestApp } from '../support/test-app.js';

const KEK = generateKeyEncryptionKey();
const OTHER_KEK = generateKeyEncryptionKey();
const ADDRESS = '192.0.2.44';

describe('the keyed hashes: one key per use, derived from KEY_ENCRYPTION_KEY', () => {
  it('with a KEK, each use hashes the same text differently, and unlike the plain SHA-256', () => {
    const keyed = keyedHashes(Buffer.from(KEK, 'base64url'));
    const plain = keyedHashes(undefined);
    const text = 'issue-ip-hour';
    const hashes = [
      keyed.rootToken(`event\n${text}`),
      keyed.clientKey(text),
      keyed.rateLimitSubject('event', text),
      plain.clientKey(text),
    ];
    expect(new Set(hashes).size).toBe(4);
    expect(hashes.every((h) => /^[0-9a-f]{64}$/.test(h))).toBe(true);
  });

  it('another KEK gives other hashes, the same KEK the same ones', () => {
    const one = keyedHashes(Buffer.from(KEK, 'base64url'));
    const again = keyedHashes(Buffer.from(KEK, 'base64url'));
    const other = keyedHashes(Buffer.from(OTHER_KEK, 'base64url'));
    expect(again.rootToken(ADMIN_TOKEN)).toBe(one.rootToken(ADMIN_TOKEN));
    expect(other.rootToken(ADMIN_TOKEN)).not.toBe(one.rootToken(ADMIN_TOKEN));
  });

  it('each keyed hash is the HMAC-SHA256 of its text under the key HKDF derives for its use, as createHmac makes it', () => {
    const kek = Buffer.from(KEK, 'base64url');
    const keyed = keyedHashes(kek);
    const hmac = (use: string, text: string) =>
      createHmac('sha256', Buffer.from(hkdfSync('sha256', kek, Buffer.alloc(0), `slowdns keyed hash v1\0${use}`, 32)))
        .update(text)
        .digest('hex');
    for (const text of ['', ADDRESS, '2001:db8:1:2::/64', 'é ✓ 𝄞', 'x'.repeat(300)]) {
      expect(keyed.rootToken(text)).toBe(hmac('root-token', text));
      expect(keyed.clientKey(text)).toBe(hmac('client-key', `event\n${text}`));
      expect(keyed.rateLimitSubject('precheck-ip-day', text)).toBe(
        hmac('rate-limit-subject', `precheck-ip-day\n${text}`),
      );
    }
  });

  it('without a KEK, the hashes are the plain SHA-256 of the text as before', () => {
    const plain = keyedHashes(undefined);
    expect({ keyed: plain.keyed, root: plain.rootToken(ADMIN_TOKEN), client: plain.clientKey(ADDRESS) }).toEqual({
      keyed: false,
      root: sha256Hex(ADMIN_TOKEN),
      client: sha256Hex(`event\n${ADDRESS}`),
    });
    expect(plain.rateLimitSubject('issue-ip-hour', ADDRESS)).toBe(sha256Hex(`issue-ip-hour\n${ADDRESS}`));
  });
});

describe('what the service stores, with KEY_ENCRYPTION_KEY and without', () => {
  let plain: TestApp;
  let keyed: TestApp;
  let rekeyed: TestApp;
  const keyedWith = (kek: string) => keyedHashes(Buffer.from(kek, 'base64url'));
  beforeAll(async () => {
    plain = await createTestApp({ ADMIN_TOKEN });
    keyed = buildTestApp(plain.database, plain.keys, { ADMIN_TOKEN, KEY_ENCRYPTION_KEY: KEK }, plain.clock);
    rekeyed = buildTestApp(plain.database, plain.keys, { ADMIN_TOKEN, KEY_ENCRYPTION_KEY: OTHER_KEK }, plain.clock);
  });
  beforeEach(async () => {
    await plain.reset();
    for (const app of [keyed, rekeyed]) {
      app.rateLimitOverrides.invalidate();
      app.receiptKeys.invalidate();
    }
  });
  afterAll(() => plain.close());

  const rootSessionHash = async () => (await plain.database.db.select().from(consoleSessions))[0]!.rootTokenHash;

  it('a root console session keeps the keyed hash of ADMIN_TOKEN with a KEK, its plain SHA-256 without', async () => {
    const keyedCookie = await signIn(keyed, ADMIN_TOKEN);
    expect(await rootSessionHash()).toBe(keyedWith(KEK).rootToken(ADMIN_TOKEN));
    expect(await rootSessionHash()).not.toBe(sha256Hex(ADMIN_TOKEN));
    expect((await consolePage(keyed, '/admin', keyedCookie)).html).toContain('Signed in as <strong>root</strong>');
    await plain.database.db.delete(consoleSessions);
    const plainCookie = await signIn(plain, ADMIN_TOKEN);
    expect(await rootSessionHash()).toBe(sha256Hex(ADMIN_TOKEN));
    expect((await consolePage(plain, '/admin', plainCookie)).html).toContain('Signed in as <strong>root</strong>');
  });

  it("another KEK ends root's console sessions, as setting one ends those opened without", async () => {
    const keyedCookie = await signIn(keyed, ADMIN_TOKEN);
    const plainCookie = await signIn(plain, ADMIN_TOKEN);
    expect((await consolePage(rekeyed, '/admin', keyedCookie)).html).toContain('action="/admin/sign-in"');
    expect((await consolePage(keyed, '/admin', plainCookie)).html).toContain('action="/admin/sign-in"');
    expect((await consolePage(rekeyed, '/admin/activations', keyedCookie)).status).toBe(401);
    expect((await consolePage(keyed, '/admin', keyedCookie)).html).toContain('Signed in as <strong>root</strong>');
  });

  it("an event keeps the keyed hash of the client's address key with a KEK, and a token-less release from it still proves the installer", async () => {
    const install = await activatedInstall(keyed);
    const [created] = await plain.database.db
      .select()
      .from(events)
      .where(eq(events.activationId, install.activationId))
      .limit(1);
    expect(created!.clientKeyHash).toBe(keyedWith(KEK).clientKey(install.address));
    expect(created!.clientKeyHash).not.toBe(sha256Hex(`event\n${install.address}`));
    expect((await releaseRequest(keyed, install.activationId, { address: install.address })).status).toBe(200);
  });

  it('without a KEK an event keeps the plain SHA-256 of the address key, as before', async () => {
    const install = await activatedInstall(plain);
    const [created] = await plain.database.db
      .select()
      .from(events)
      .where(eq(events.activationId, install.activationId))
      .limit(1);
    expect(created!.clientKeyHash).toBe(sha256Hex(`event\n${install.address}`));
  });

  it('rate limits count under keyed subject hashes with a KEK and still refuse past the quota', async () => {
    for (let i = 1; i <= 3; i++) {
      const res = await issueFrom(keyed, await browserAt(keyed, ADDRESS, `ua-keyed-${i}`));
      expect(res.status).toBe(201);
    }
    await expectRateLimited(
      await issueFrom(keyed, await browserAt(keyed, ADDRESS, 'ua-keyed-4')),
      'issue-ip-hour',
      3600,
    );
    const ipHour = (await bucketRows(keyed)).filter((r) => r.limitName === 'issue-ip-hour');
    expect(ipHour).toEqual([
      expect.objectContaining({ subjectHash: keyedWith(KEK).rateLimitSubject('issue-ip-hour', ADDRESS), count: 3 }),
    ]);
    expect(ipHour[0]!.subjectHash).not.toBe(sha256Hex(`issue-ip-hour\n${ADDRESS}`));
  });

  it('without a KEK rate limits count under the plain SHA-256 of limit and subject, as before', async () => {
    expect((await issueFrom(plain, await browserAt(plain, ADDRESS, 'ua-plain'))).status).toBe(201);
    const ipHour = (await bucketRows(plain)).filter((r) => r.limitName === 'issue-ip-hour');
    expect(ipHour).toEqual([
      expect.objectContaining({ subjectHash: sha256Hex(`issue-ip-hour\n${ADDRESS}`), count: 1 }),
    ]);
  });

  it("the admin API's usage of an address reads the keyed buckets the limiter counted", async () => {
    expect((await issueFrom(keyed, await browserAt(keyed, ADDRESS, 'ua-usage'))).status).toBe(201);
    const usage = await usageOf(keyed, { ip: ADDRESS });
    expect(usage.limits.find((l) => l.limit_name === 'issue-ip-hour')).toMatchObject({ used: 1 });
  });
});
