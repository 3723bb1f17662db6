import { hkdfSync } from 'node:crypto';
import { openText, sealText } from '../tokens/key-encryption.js';

/**
 * A stored answer is sealed (AES-256-GCM) under a key derived by HKDF from the request's scope, which holds
 * the Idempotency-Key and the credential (neither kept by the service), salted with KEY_ENCRYPTION_KEY when
 * one is set: only a repeat of the request itself opens it, so an answer holding a secret is never in clear
 * in the table or its backups, and with a KEK not even someone who knows the key and the token can open
 * a copy of the table alone. Bound to the row's key hash: a sealed answer moved to another row does not open.
 */
function sealingKey(kek: Buffer | undefined, scope: string): Buffer {
  return Buffer.from(hkdfSync('sha256', scope, kek ?? Buffer.alloc(0), 'slowdns idempotent answer v1', 32));
}

const boundTo = (keyHash: string) => Buffer.from(`slowdns idempotent answer\0${keyHash}`);

export function sealAnswer(kek: Buffer | undefined, at: { scope: string; keyHash: string }, body: string): string {
  return sealText(sealingKey(kek, at.scope), boundTo(at.keyHash), body);
}

export function openAnswer(kek: Buffer | undefined, at: { scope: string; keyHash: string }, sealed: string): string {
  return openText(sealingKey(kek, at.scope), boundTo(at.keyHash), sealed, 'an idempotent answer');
}
