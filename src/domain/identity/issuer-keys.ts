import { importJWK, type CryptoKey, type JWK } from 'jose';
import { ApiError } from '../../errors.js';
import { algorithmFor, type IDENTITY_ALGORITHMS } from './trust-block.js';
import { fetchIssuerJson, IssuerUnreachable, type IssuerFetchOptions } from './issuer-fetch.js';

/** One verifying key of an issuer: the algorithm it signs with here is fixed by its type. */
export interface IdentityKey {
  key: CryptoKey | Uint8Array;
  alg: (typeof IDENTITY_ALGORITHMS)[number];
}

/** Keys are fetched again after this, at first use (an issuer rotates on its own schedule). */
const REFRESH_MS = 60 * 60 * 1000;
/** At most one fetch per issuer in this, whatever the `kid`s tokens name: 100 made-up `kid`s cost one request. */
const REFETCH_BOUND_MS = 60 * 1000;
/** Keys fetched are used up to this long while the issuer does not answer. */
const GRACE_MS = 24 * 60 * 60 * 1000;

interface CachedIssuer {
  keys: Map<string, IdentityKey>;
  /** When the keys were last fetched (0: never). */
  fetchedAt: number;
  /** When a fetch was last tried, answered or not. */
  triedAt: number;
}

const unavailable = (retryAfterSeconds: number) =>
  new ApiError('identity_issuer_unavailable', undefined, { 'Retry-After': String(Math.max(1, retryAfterSeconds)) });

/** The usable keys of a JWK set: a `kid`, a signing key of a type this service verifies; the rest is left out. */
export async function importKeySet(set: unknown): Promise<Map<string, IdentityKey>> {
  const keys = new Map<string, IdentityKey>();
  const listed = (set as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(listed)) throw new IssuerUnreachable('the key set has no keys');
  for (const jwk of listed as JWK[]) {
    if (typeof jwk?.kid !== 'string' || (jwk.use !== undefined && jwk.use !== 'sig')) continue;
    if (!['RSA', 'EC', 'OKP'].includes(jwk.kty ?? '')) continue;
    const alg = algorithmFor(jwk);
    if (jwk.alg !== undefined && jwk.alg !== alg && !(alg === 'EdDSA' && jwk.alg === 'Ed25519')) continue;
    try {
      keys.set(jwk.kid, { key: await importJWK({ ...jwk, alg }, alg), alg });
    } catch {
      // A key this service cannot use (another curve, a malformed member) verifies nothing here.
    }
  }
  return keys;
}

/**
 * The keys of the workload identity issuers (DESIGN §25), one cache per app: discovery and the key set are fetched
 * at first use through the webhooks' address checks, cached by `kid`, fetched again when an hour old or when a
 * token names an unknown `kid` — at most once a minute per issuer — and kept up to 24 hours while the issuer does
 * not answer. Concurrent requests share one fetch.
 */
export class IdentityIssuers {
  readonly #cache = new Map<string, CachedIssuer>();
  readonly #fetching = new Map<string, Promise<void>>();

  constructor(private readonly options: IssuerFetchOptions) {}

  /**
   * The key for `kid`, or undefined when the issuer's current keys have none (the token is then invalid).
   * 503 `identity_issuer_unavailable` with `Retry-After` when the issuer cannot be reached and no key of it is kept.
   */
  async keyFor(issuer: string, kid: string, now: Date): Promise<IdentityKey | undefined> {
    const at = now.getTime();
    let cached = this.#cache.get(issuer);
    const due = !cached || at - cached.fetchedAt > REFRESH_MS || !cached.keys.has(kid);
    if (due && (!cached || at - cached.triedAt >= REFETCH_BOUND_MS)) {
      await this.#refresh(issuer, at);
      cached = this.#cache.get(issuer)!;
    }
    if (!cached || cached.fetchedAt === 0 || at - cached.fetchedAt > GRACE_MS) {
      const waited = cached ? at - cached.triedAt : 0;
      throw unavailable(Math.ceil((REFETCH_BOUND_MS - waited) / 1000));
    }
    return cached.keys.get(kid);
  }

  #refresh(issuer: string, at: number): Promise<void> {
    const running = this.#fetching.get(issuer);
    if (running) return running;
    const fetching = this.#fetch(issuer, at).finally(() => this.#fetching.delete(issuer));
    this.#fetching.set(issuer, fetching);
    return fetching;
  }

  async #fetch(issuer: string, at: number): Promise<void> {
    const kept = this.#cache.get(issuer) ?? { keys: new Map(), fetchedAt: 0, triedAt: 0 };
    kept.triedAt = at;
    this.#cache.set(issuer, kept);
    try {
      const discovery = (await fetchIssuerJson(
        `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`,
        this.options,
      )) as { issuer?: unknown; jwks_uri?: unknown } | null;
      if (discovery?.issuer !== issuer || typeof discovery.jwks_uri !== 'string')
        throw new IssuerUnreachable('discovery names another issuer or no jwks_uri');
      const keys = await importKeySet(await fetchIssuerJson(discovery.jwks_uri, this.options));
      this.#cache.set(issuer, { keys, fetchedAt: at, triedAt: at });
    } catch (err) {
      if (!(err instanceof IssuerUnreachable)) throw err;
      // Kept as they were: within the grace, the keys fetched before still verify.
    }
  }
}
