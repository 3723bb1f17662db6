import { eq, isNotNull, or } from 'drizzle-orm';
import type { Database } from '../../db/database.js';
import { webhookEndpoints } from '../../db/schema.js';
import { ApiError } from '../../errors.js';
import { openText, sealText } from '../tokens/key-encryption.js';

type WebhookEndpointRow = typeof webhookEndpoints.$inferSelect;

/**
 * How an endpoint's secret and URL are kept: the one rule of every secret at rest (DESIGN §23), the signing
 * keys' own. Sealed under KEY_ENCRYPTION_KEY when it is set; in clear only where REQUIRE_KEY_ENCRYPTION allows
 * it. The URL counts as a secret (DESIGN §28): a chat platform's incoming webhook is its own credential.
 */
export interface SecretSealing {
  kek: Buffer | undefined;
  /** REQUIRE_KEY_ENCRYPTION: without a KEK, no secret is kept (409 `key_encryption_required`). */
  required: boolean;
}

type Field = 'secret' | 'url';

const associatedData = (field: Field, endpointId: string) =>
  Buffer.from(field === 'secret' ? `slowdns webhook secret\0${endpointId}` : `slowdns webhook url\0${endpointId}`);

/** A value as it is stored: sealed under the KEK when there is one, else in clear if allowed (neither can be a hash). */
export function storedField(
  sealing: SecretSealing,
  field: Field,
  endpointId: string,
  value: string,
): { clear: string | null; sealed: string | null } {
  if (sealing.kek) return { clear: null, sealed: sealText(sealing.kek, associatedData(field, endpointId), value) };
  if (sealing.required) throw new ApiError('key_encryption_required');
  return { clear: value, sealed: null };
}

export function openField(
  kek: Buffer | undefined,
  field: Field,
  endpointId: string,
  clear: string | null,
  sealed: string | null,
): string {
  if (clear !== null) return clear;
  if (!kek) throw new Error(`webhook endpoint ${endpointId}: its ${field} is sealed and KEY_ENCRYPTION_KEY is not set`);
  return openText(kek, associatedData(field, endpointId), sealed!, `webhook endpoint ${endpointId} ${field}`);
}

/** Where an endpoint's messages go: its URL, opened. */
export function endpointUrl(endpoint: WebhookEndpointRow, kek: Buffer | undefined): string {
  return openField(kek, 'url', endpoint.id, endpoint.url, endpoint.urlSealed);
}

/** The secrets that sign an endpoint's messages now: its secret, and the previous one during a rotation's overlap. */
export function signingSecrets(endpoint: WebhookEndpointRow, kek: Buffer | undefined, now: Date): string[] {
  const secrets = [openField(kek, 'secret', endpoint.id, endpoint.secret, endpoint.secretSealed)];
  if (endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt.getTime() > now.getTime()) {
    secrets.push(openField(kek, 'secret', endpoint.id, endpoint.previousSecret, endpoint.previousSecretSealed));
  }
  return secrets;
}

const sealedOrNothing = (kek: Buffer, field: Field, id: string, clear: string | null, sealed: string | null) =>
  clear === null && sealed === null
    ? null
    : storedField({ kek, required: true }, field, id, openField(kek, field, id, clear, sealed)).sealed;

/**
 * At start with a KEK: every webhook secret and URL found in clear (kept before the KEK was set) is sealed.
 * Answers how many endpoints had one.
 */
export async function sealWebhookSecretsInClear(db: Database, kek: Buffer): Promise<number> {
  const rows = await db
    .select()
    .from(webhookEndpoints)
    .where(
      or(
        isNotNull(webhookEndpoints.secret),
        isNotNull(webhookEndpoints.previousSecret),
        isNotNull(webhookEndpoints.url),
      ),
    );
  for (const row of rows) {
    await db
      .update(webhookEndpoints)
      .set({
        secret: null,
        secretSealed: sealedOrNothing(kek, 'secret', row.id, row.secret, row.secretSealed),
        previousSecret: null,
        previousSecretSealed: sealedOrNothing(kek, 'secret', row.id, row.previousSecret, row.previousSecretSealed),
        url: null,
        urlSealed: sealedOrNothing(kek, 'url', row.id, row.url, row.urlSealed),
      })
      .where(eq(webhookEndpoints.id, row.id));
  }
  return rows.length;
}
