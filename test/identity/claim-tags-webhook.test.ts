/**
 * Tags from a token's claims travel as any tag (DESIGN §25): a machine enrolled through a trust code with
 * `tags_from_claims` is announced to a real webhook receiver with the claim's value in `data.tags`, beside the
 * code's fixed tags and the identity, and no webhook body carries the token.
 */
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN } from '../fleet-codes/fleet-requests.js';
import { useTestApp } from '../support/test-app.js';
import { startProviderIssuer, type ProviderIssuer } from '../support/workload-issuers.js';
import { startReceiver } from '../webhooks/receiver.js';
import { addWebhook } from '../webhooks/webhook-requests.js';
import { testWorker } from '../webhooks/webhook-worker.js';
import { identityEnroll, trustCode } from './identity-requests.js';

const SUB = 'repo:example-org/dns-fleet:ref:refs/heads/main';

describe('tags from claims in a webhook delivery', () => {
  let issuer: ProviderIssuer;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  beforeAll(async () => {
    issuer = await startProviderIssuer();
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.close();
    await issuer.close();
  });
  const t = useTestApp({
    ADMIN_TOKEN,
    IDENTITY_ISSUER_ALLOW_HTTP: 'true',
    IDENTITY_ISSUER_ALLOW_PRIVATE: 'true',
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE: 'true',
  });
  // The provider signs with the real time, and the webhook library checks its timestamps against it.
  beforeEach(() => t.clock.set(new Date()));

  it('activation.created reaches the receiver with the claim as a tag, the identity, and never the token', async () => {
    const { secret } = await addWebhook(t, receiver.url, ['activation.created']);
    const code = await trustCode(t, issuer.issuer, {
      tags: { env: 'ci' },
      trust: { claims: { repository_owner_id: '4242' }, tags_from_claims: { repo: 'repository', branch: 'ref' } },
    });
    const token = await issuer.mint(SUB, {
      repository: 'example-org/dns-fleet',
      repository_owner_id: '4242',
      ref: 'refs/heads/main',
    });
    const res = await identityEnroll(t, code.install_code_id, token);
    expect(res.status).toBe(200);
    const { data: activation } = await res.json();

    await testWorker(t).worker.runOnce();
    expect(receiver.received).toHaveLength(1);
    const [message] = receiver.received;
    const delivered = new Webhook(secret).verify(message!.body, message!.headers as Record<string, string>) as {
      type: string;
      data: Record<string, unknown>;
    };
    expect(delivered.type).toBe('activation.created');
    expect(delivered.data).toMatchObject({
      activation_id: activation.activation_id,
      install_code_id: code.install_code_id,
      tags: { env: 'ci', repo: 'example-org/dns-fleet', branch: 'refs/heads/main' },
      identity: { iss: issuer.issuer, sub: SUB },
    });
    expect(message!.body).not.toContain(token.split('.')[2]);
    expect(message!.body).not.toContain(token.split('.')[1]);
  });
});
