import { sha256Hex } from './secret-hash.js';

/** Not imported from compact-jws.ts: that would close a circle through signing-keys.ts. */
type JsonObject = Record<string, unknown>;

/** What this process put in a token it signed: its header and payload, frozen. */
export interface SignedParts {
  readonly header: Readonly<JsonObject>;
  readonly payload: Readonly<JsonObject>;
}

interface Remembered {
  /** ms since the epoch */
  expiry: number;
  parts: SignedParts | undefined;
}

/**
 * The tokens this process signed, remembered until they expire, by SHA-256 (the token itself is a
 * secret and is never kept). A token that comes back byte for byte carries a signature this process
 * made over exactly that header and payload, so checking the signature again (Ed25519 verification,
 * about 0.1 ms of CPU, three times a signature) would learn nothing. Only the signature check is
 * skipped: the key the header names must still verify at that moment and every claim is still checked.
 *
 * With the token, its header and payload are kept as signed: a token that comes back is not decoded
 * again (base64url, JSON, the shape checks), since those bytes are the ones this process encoded.
 *
 * A token signed by another instance, before a restart or forgotten to make room is verified in full:
 * the memo holds at most `capacity` tokens and forgets the oldest first.
 */
export class SignedTokenMemo {
  /** Digest → expiry and what was signed. */
  readonly #expiries = new Map<string, Remembered>();
  /**
   * The digests in the order signed, a ring of `capacity` slots from `#oldest`. Forgetting the oldest
   * through the Map's own order would walk past every entry deleted since its last rehash, on every
   * token signed once the memo is full.
   */
  readonly #order: (string | undefined)[];
  #oldest = 0;
  #held = 0;

  constructor(readonly capacity = 20_000) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new RangeError(`the memo holds a whole number of tokens, at least 1 (not ${capacity})`);
    this.#order = new Array<string | undefined>(capacity);
  }

  remember(token: string, expiresAt: Date, now: Date, parts?: SignedParts): void {
    const at = now.getTime();
    while (this.#held > 0) {
      const digest = this.#order[this.#oldest]!;
      const expiry = this.#expiries.get(digest)?.expiry;
      if (this.#held < this.capacity && expiry !== undefined && expiry > at) break;
      this.#expiries.delete(digest);
      this.#order[this.#oldest] = undefined;
      this.#oldest = (this.#oldest + 1) % this.capacity;
      this.#held--;
    }
    const digest = sha256Hex(token);
    this.#order[(this.#oldest + this.#held) % this.capacity] = digest;
    this.#held++;
    this.#expiries.set(digest, { expiry: expiresAt.getTime(), parts });
  }

  /** Whether this process signed exactly `token` and it has not expired at `now`. */
  signedHere(token: string, now: Date): boolean {
    return this.#find(token, now) !== undefined;
  }

  /** What this process signed into exactly `token`, while it has not expired at `now`, when it kept it. */
  signedParts(token: string, now: Date): SignedParts | undefined {
    return this.#find(token, now)?.parts;
  }

  #find(token: string, now: Date): Remembered | undefined {
    const found = this.#expiries.get(sha256Hex(token));
    return found !== undefined && found.expiry > now.getTime() ? found : undefined;
  }

  clear(): void {
    this.#expiries.clear();
    this.#order.fill(undefined);
    this.#oldest = 0;
    this.#held = 0;
  }

  get size(): number {
    return this.#expiries.size;
  }
}
