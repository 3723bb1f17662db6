// What the rate limiter costs a request: SQL statements and microseconds per call, for an admitted
// request (new buckets), an admitted request (existing buckets) and a refused one (rolled back),
// plus a whole issue request through the app for scale.
import { createApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createBrowserSession } from '../../src/domain/browser-sessions/sessions.js';
import { checksFor, consumeRateLimits } from '../../src/domain/rate-limits/limiter.js';
import { generatePrivateJwk, keyRingFromJwks } from '../../src/domain/tokens/signing-keys.js';
import { createLogger } from '../../src/logger.js';
import type { CountingDatabase } from './counting-database.js';
import { measure, type Measurement } from './measure.js';

const NOW = new Date('2026-11-22T10:30:00Z');

/** The four issue policies for the i-th distinct client. */
const issueChecks = (i: number) =>
  checksFor('issue', { ip: `198.51.${i >> 8}.${i & 255}`, session: `session-${i}`, fingerprint: `fingerprint-${i}` });

export async function benchRateLimiter(database: CountingDatabase, runs: number): Promise<Measurement[]> {
  const { db } = database;
  const results: Measurement[] = [];

  results.push(
    await measure(database, 'limiter, admitted (4 new buckets)', runs, async (i) => {
      const decision = await consumeRateLimits(db, issueChecks(i), NOW);
      if (!decision.admitted) throw new Error('expected admission');
    }),
  );
  // The same clients again: their buckets exist, each upsert updates 4 rows (each now at 2, under every quota).
  results.push(
    await measure(
      database,
      'limiter, admitted (4 existing buckets)',
      runs,
      async (i) => {
        const decision = await consumeRateLimits(db, issueChecks(i), NOW);
        if (!decision.admitted) throw new Error('expected admission');
      },
      0,
    ),
  );
  // One client over its session quota every time: increments, then the rollback.
  const exhausted = issueChecks(1_000_000);
  await consumeRateLimits(db, exhausted, NOW);
  await consumeRateLimits(db, exhausted, NOW);
  results.push(
    await measure(database, 'limiter, refused (rolled back)', runs, async () => {
      const decision = await consumeRateLimits(db, exhausted, NOW);
      if (decision.admitted) throw new Error('expected refusal');
    }),
  );

  // A whole issue request (session lookup, limiter, code insert) through the app, for scale.
  const clock = { now: () => NOW };
  const { app } = createApp({
    db,
    clock,
    config: loadConfig({ PUBLIC_BASE_URL: 'http://localhost:8080' }),
    logger: createLogger('silent'),
    keys: await keyRingFromJwks([await generatePrivateJwk()]),
  });
  const sessions: string[] = [];
  for (let i = 0; i < runs + 100; i++) sessions.push((await createBrowserSession(db, NOW, 3600)).cookieValue);
  results.push(
    await measure(database, 'whole issue request (app.request)', runs, async (i) => {
      const res = await app.request(
        '/api/v2/slowdns/code/issue',
        { method: 'POST', headers: { cookie: `slowdns_browser=${sessions[i]}`, 'user-agent': `bench/${i}` } },
        { incoming: { socket: { remoteAddress: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}` } } },
      );
      if (res.status !== 201) throw new Error(`issue answered ${res.status}`);
    }),
  );
  return results;
}
