import type { Context, MiddlewareHandler } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { RouteDeps } from '../deps.js';
import { openAnswer, sealAnswer } from '../domain/idempotency/answer-sealing.js';
import {
  ANSWER_KEPT_SECONDS,
  claimIdempotencyKey,
  keepAnswer,
  SECRET_ANSWER_KEPT_SECONDS,
  type StoredAnswer,
} from '../domain/idempotency/idempotency-keys.js';
import { requestFingerprint } from '../domain/idempotency/request-fingerprint.js';
import { ApiError } from '../errors.js';
import type { AppEnv } from './app-env.js';
import { bearerToken } from './credentials.js';

export const IDEMPOTENCY_KEY = 'Idempotency-Key';
export const IDEMPOTENT_REPLAYED = 'Idempotent-Replayed';
/** 16 to 255 printable ASCII characters, not starting or ending with a space. */
const keyShape = /^[\x21-\x7e][\x20-\x7e]{14,253}[\x21-\x7e]$/;

/** Thrown inside the key's transaction to undo it: the change did not answer 2xx, so nothing of it is kept. */
class NotKept extends Error {}

/**
 * The scope of a key (DESIGN §27): the credential that sent it (the bearer token, never stored: only hashed
 * into the row's key and the answer's sealing key), the method and the concrete path, then the key itself.
 */
function scopeOf(c: Context<AppEnv>, key: string): string {
  const credential = bearerToken(c) ?? `operator ${c.get('operator')}`;
  return [credential, c.req.method, c.req.path, key].join('\n');
}

/** The route's middleware that says its answer shows a secret once: kept an hour instead of a day. */
export const answerShowsSecret: MiddlewareHandler<AppEnv> = async (c, next) => {
  c.set('answerShowsSecret', true);
  await next();
};

/**
 * Every admin POST, after the operator is known: `c.get('db')` is what its handler changes the database
 * through. Without `Idempotency-Key`, the primary. With one, a transaction whose first statement writes the
 * key's row (`claimIdempotencyKey`): the handler's change runs inside it, and its answer, when 2xx, is kept
 * sealed in the same transaction before it commits, so a change is never committed without the answer a
 * retry replays. A repeat of the request answers the kept status and body with `Idempotent-Replayed: true`
 * and runs nothing; a 4xx or 5xx keeps nothing (the transaction is undone).
 */
export function idempotencyKeys(
  deps: Pick<RouteDeps, 'db' | 'clock' | 'keyedHashes' | 'config'>,
): MiddlewareHandler<AppEnv> {
  const kek = deps.config.keyEncryptionKey;
  return async (c, next) => {
    c.set('db', deps.db);
    const key = c.req.header(IDEMPOTENCY_KEY);
    if (c.req.method !== 'POST' || key === undefined) return next();
    if (!keyShape.test(key))
      throw new ApiError(
        'validation_failed',
        `${IDEMPOTENCY_KEY}: 16 to 255 printable ASCII characters, not starting or ending with a space.`,
      );
    const scope = scopeOf(c, key);
    const keyHash = deps.keyedHashes.idempotencyKey(scope);
    const url = new URL(c.req.url);
    const fingerprint = requestFingerprint({ path: url.pathname, search: url.searchParams, body: await c.req.text() });
    const now = deps.clock.now();
    let stored: StoredAnswer | undefined;
    try {
      stored = await deps.db.transaction(async (tx) => {
        const kept = await claimIdempotencyKey(tx, { keyHash, fingerprint, now });
        if (kept) return kept;
        c.set('db', tx);
        await next();
        c.set('db', deps.db);
        const { status } = c.res;
        if (status < 200 || status > 299) throw new NotKept();
        const keptSeconds = c.get('answerShowsSecret') ? SECRET_ANSWER_KEPT_SECONDS : ANSWER_KEPT_SECONDS;
        await keepAnswer(tx, {
          keyHash,
          status,
          sealedAnswer: sealAnswer(kek, { scope, keyHash }, await c.res.clone().text()),
          expiresAt: new Date(now.getTime() + keptSeconds * 1000),
        });
        return undefined;
      });
    } catch (error) {
      if (error instanceof NotKept) return;
      throw error;
    }
    if (!stored) return;
    return c.body(openAnswer(kek, { scope, keyHash }, stored.sealedAnswer), stored.status as ContentfulStatusCode, {
      'content-type': 'application/json',
      // A kept answer may show a secret (a code, a token): as its first answer did, it is never cached.
      'cache-control': 'no-store',
      [IDEMPOTENT_REPLAYED]: 'true',
    });
  };
}
