import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { JWK } from 'jose';

/**
 * Private signing keys at rest: AES-256-GCM under KEY_ENCRYPTION_KEY (the KEK), with the key id as
 * associated data, so a sealed key moved to another row does not open. The sealed form is
 * `v1.<kek id>.<iv>.<ciphertext and tag>` (base64url); the KEK id, a short hash of the KEK, lets a
 * wrong KEY_ENCRYPTION_KEY be named as such instead of failing as a corrupt row.
 */
const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

const KEY_ENCRYPTION_KEY_BYTES = 32;

export class KeyEncryptionError extends Error {}

export function generateKeyEncryptionKey(): string {
  return randomBytes(KEY_ENCRYPTION_KEY_BYTES).toString('base64url');
}

/** A short, non-secret name for a KEK: 8 hex characters of a hash of it. */
function keyEncryptionKeyId(kek: Buffer): string {
  return createHash('sha256').update('slowdns key-encryption-key id\0').update(kek).digest('hex').slice(0, 8);
}

const associatedData = (kid: string) => Buffer.from(`slowdns signing key\0${kid}`);

/** Seals a text under the KEK, bound to `associated` (a sealed value moved to another row does not open). */
export function sealText(kek: Buffer, associated: Buffer, plain: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', kek, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(associated);
  const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return [VERSION, keyEncryptionKeyId(kek), iv.toString('base64url'), sealed.toString('base64url')].join('.');
}

/** Opens what `sealText` sealed; `what` names the row in the error (never its content). */
export function openText(kek: Buffer, associated: Buffer, sealed: string, what: string): string {
  const [version, kekId, iv, body] = sealed.split('.');
  if (version !== VERSION || !kekId || !iv || !body)
    throw new KeyEncryptionError(`${what}: not a sealed value this version can read`);
  if (kekId !== keyEncryptionKeyId(kek)) {
    throw new KeyEncryptionError(
      `${what} is encrypted under another KEY_ENCRYPTION_KEY (id ${kekId}; this one is ${keyEncryptionKeyId(kek)})`,
    );
  }
  const bytes = Buffer.from(body, 'base64url');
  try {
    const decipher = createDecipheriv('aes-256-gcm', kek, Buffer.from(iv, 'base64url'), { authTagLength: TAG_BYTES });
    decipher.setAAD(associated);
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    return Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - TAG_BYTES)), decipher.final()]).toString(
      'utf8',
    );
  } catch {
    throw new KeyEncryptionError(
      `${what} does not open with KEY_ENCRYPTION_KEY: the row was altered or belongs to another id`,
    );
  }
}

export function sealPrivateJwk(kek: Buffer, kid: string, jwk: JWK): string {
  return sealText(kek, associatedData(kid), JSON.stringify(jwk));
}

export function openPrivateJwk(kek: Buffer, kid: string, sealed: string): JWK {
  return JSON.parse(openText(kek, associatedData(kid), sealed, `signing key ${kid}`)) as JWK;
}
