import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { webhookEndpoints } from '../../src/db/schema.js';
import { signingSecrets } from '../../src/domain/webhooks/sealed-fields.js';
import { prepareDatabase } from '../../src/prepare-database.js';
import { createLogger } from '../../src/logger.js';
import { ADMIN_TOKEN } from '../admin/admin-requests.js';
import { expectError } from '../support/install-flow.js';
import { TEST_KEK } from '../support/spawn-service.js';
import { buildTestApp, useTestApp } from '../support/test-app.js';
import { addWebhook, webhookRequest } from './webhook-requests.js';

/** DESIGN §23: one rule for every secret at rest; webhook secrets follow the signing keys' REQUIRE_KEY_ENCRYPTION. */
describe('webhook secrets at rest', () => {
  // As on PostgreSQL with SIGNING_KEYS and no KEY_ENCRYPTION_KEY: encryption required, nothing to seal with.
  const t = useTestApp({ ADMIN_TOKEN, REQUIRE_KEY_ENCRYPTION: 'true' });

  it('refuses to create a webhook with 409 key_encryption_required naming KEY_ENCRYPTION_KEY, keeping nothing', async () => {
    const res = await webhookRequest(t, 'webhooks', 'POST', { url: 'https://hooks.example.com/x', events: ['*'] });
    expect(res.status).toBe(409);
    const { error } = await res.json();
    expect(error.code).toBe('key_encryption_required');
    expect(error.message).toContain('KEY_ENCRYPTION_KEY');
    expect(await t.database.db.select().from(webhookEndpoints)).toEqual([]);
  });

  it('refuses to rotate a secret kept in clear before the rule, with the same 409', async () => {
    const relaxed = buildTestApp(t.database, t.keys, { ADMIN_TOKEN }, t.clock);
    const created = await addWebhook(relaxed, 'https://hooks.example.com/x');
    await expectError(
      await webhookRequest(t, `webhooks/${created.webhook_id}/rotate-secret`, 'POST'),
      409,
      'key_encryption_required',
    );
  });

  it('a start with a KEK seals every webhook secret found in clear, and the endpoint still signs with it', async () => {
    const relaxed = buildTestApp(t.database, t.keys, { ADMIN_TOKEN }, t.clock);
    const created = await addWebhook(relaxed, 'https://hooks.example.com/x');
    const rotated = await (
      await webhookRequest(relaxed, `webhooks/${created.webhook_id}/rotate-secret`, 'POST')
    ).json();
    const lines: string[] = [];
    const kek = Buffer.from(TEST_KEK, 'base64url');
    await prepareDatabase({ db: t.database.db } as never, {
      keys: t.keys,
      keyStore: { kek, verifyWindowSeconds: 3600 },
      clock: t.clock,
      logger: createLogger('debug', (line) => lines.push(line)),
      label: 'test',
      stopping: () => false,
    });
    const [row] = await t.database.db
      .select()
      .from(webhookEndpoints)
      .where(eq(webhookEndpoints.id, created.webhook_id));
    expect({ secret: row!.secret, previous: row!.previousSecret }).toEqual({ secret: null, previous: null });
    expect(row!.secretSealed).toEqual(expect.any(String));
    expect(row!.previousSecretSealed).toEqual(expect.any(String));
    expect(signingSecrets(row!, kek, t.clock.now())).toEqual([rotated.data.secret, created.secret]);
    expect(lines.join('\n')).toContain('webhook secrets sealed');
    expect(lines.join('\n')).not.toContain(created.secret);
  });
});
