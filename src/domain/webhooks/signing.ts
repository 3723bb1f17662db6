import { createHmac, randomBytes } from 'node:crypto';

/** Random bytes in a secret: Standard Webhooks asks for 24 to 64. */
const SECRET_BYTES = 32;
const SECRET_PREFIX = 'whsec_';

/** A new endpoint secret, as Standard Webhooks writes one: `whsec_` + base64 of random bytes. */
export function generateWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64');
}

/**
 * The `webhook-signature` header of a message: `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` under
 * each secret (the key is the secret's base64 part, decoded), space-separated: during a rotation both
 * the new and the previous secret sign, and a receiver holding either verifies.
 */
export function webhookSignature(secrets: string[], messageId: string, timestampSeconds: number, body: string): string {
  const content = `${messageId}.${timestampSeconds}.${body}`;
  return secrets
    .map((secret) => {
      const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
      return `v1,${createHmac('sha256', key).update(content).digest('base64')}`;
    })
    .join(' ');
}
