import { sha256Hex } from './secret-hash.js';

/**
 * The tokens this process signed, remembered until they expire, by SHA-256 (the token itself is a
 * secret and is never kept). A token that comes back byte for byte carries a signature this process
 * made over exactly that header and payload, so checking the signature again (Ed25519 verification,
 * about 0.1 ms of CPU, three times a signature) would learn nothing. Only the signature check is
 * skipped: the key the header names must still verify at that moment and every claim is still checked.
 *
 * A token signed by another instance, before a restart or forgotten to make room is verified in full:
 * the memo holds at most `capacity` tokens and forgets the oldest first.
 */
export class SignedTokenMemo {
  /** Digest → expiry (ms since the epoch), in the order signed. */
  readonly #expiries = new Map<string, number>();

  constructor(readonly capacity = 20_000) {}

  remember(token: string, expiresAt: Date, now: Date): void {
    for (const [digest, expiry] of this.#expiries) {
      if (expiry > now.getTime() && this.#expiries.size < this.capacity) break;
      this.#expiries.delete(digest);
    }
    this.#expiries.set(sha256Hex(token), expiresAt.getTime());
  }

  /** Whether this process signed exactly `token` and it has not expired at `now`. */
  signedHere(token: string, now: Date): boolean {
    const expiry = this.#expiries.get(sha256Hex(token));
    return expiry !== undefined && expiry > now.getTime();
  }

  clear(): void {
    this.#expiries.clear();
  }

  get size(): number {
    return this.#expiries.size;
  }
}
