import { afterAll, beforeAll, beforeEach } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import type { AppDeps } from '../../src/deps.js';
import { openDatabase } from '../../src/db/client.js';
import { loadConfig, type Config } from '../../src/config.js';
import { generatePrivateJwk, keyRingFromJwks, type KeyRing } from '../../src/domain/tokens/signing-keys.js';
import { createLogger } from '../../src/logger.js';
import type { OpenApiDocument } from '../../src/openapi-document.js';
import { recordProblems, responseValidator, type SentHeaders } from './response-validator.js';
import { TEST_EPOCH, TestClock } from './test-clock.js';
import { openTestDatabase, type TestDatabase } from './test-database.js';

export interface TestApp extends App {
  keys: KeyRing;
  database: TestDatabase;
  clock: TestClock;
  config: Config;
  /** Every log line the app wrote, for tests that assert nothing secret is logged. */
  logs: string[];
  /**
   * `app.request` from a given client address (the socket peer, as @hono/node-server gives it).
   * An answer that is not as the app's OpenAPI document says (status, headers, body, error code) fails the test.
   */
  request(path: string, init?: RequestInit, address?: string): Promise<Response>;
  /** Empties the database and puts the clock back to its start: call it before each test. */
  reset(): Promise<void>;
  close(): Promise<void>;
}

/** What a test may hand the app beside its settings: the identity issuers' keys (DESIGN §25) trusting its own https issuer. */
type TestDeps = Pick<AppDeps, 'identityIssuers'>;

export async function createTestApp(env: Record<string, string> = {}, deps: TestDeps = {}): Promise<TestApp> {
  const database = await openTestDatabase();
  return buildTestApp(database, await testKeyRing(), env, undefined, deps);
}

/** A fresh Ed25519 key ring: tests sign with their own keys, never the database's. */
export async function testKeyRing(): Promise<KeyRing> {
  return keyRingFromJwks([await generatePrivateJwk()]);
}

/** A further app instance on an existing test database (as a second server on one PostgreSQL). */
export function buildTestApp(
  database: TestDatabase,
  keys: KeyRing,
  env: Record<string, string> = {},
  clock = new TestClock(),
  deps: TestDeps = {},
): TestApp {
  const config = loadConfig({ PUBLIC_BASE_URL: 'http://localhost:8080', ...env });
  const logs: string[] = [];
  const logger = createLogger('debug', (line) => logs.push(line));
  // No `availability`: the database is taken as always there, so a busy test machine never turns a slow
  // answer into a 503 (the outage tests in test/outage/ build their apps with the real one).
  const built = createApp({ db: database.db, clock, config, logger, keys, ...deps });
  documents.set(built.app, built.document);
  return {
    ...built,
    database,
    keys,
    clock,
    config,
    logs,
    request: async (path, init, address = '203.0.113.10') => {
      const res = await built.app.request(path, init, { incoming: { socket: { remoteAddress: address } } });
      await responseValidator(built.document).assert(init?.method ?? 'GET', path, res);
      return res;
    },
    reset: async () => {
      clock.set(TEST_EPOCH);
      await database.reset();
      // The app's copy of the overrides would outlive the emptied table.
      built.rateLimitOverrides.invalidate();
      built.receiptKeys.invalidate();
    },
    close: () => database.close(),
  };
}

const documents = new WeakMap<object, OpenApiDocument>();

type Fetchable = { fetch: (request: Request, env?: unknown) => Response | Promise<Response> };

/**
 * `app.fetch` of a test app (served on a socket, or injected into a client), its answer checked against
 * the app's document: a mismatch cannot fail the test from inside the server, so the test harness
 * (test/support/validation-setup.ts) fails the running test after it.
 */
export async function fetchChecked(app: Fetchable, request: Request, env?: unknown): Promise<Response> {
  const method = request.method;
  const res = await app.fetch(request, env);
  const document = documents.get(app);
  // What the app set on the Node response itself goes out with the answer (src/http/answer-headers.ts).
  const outgoing = (env as { outgoing?: { getHeaders?: () => SentHeaders } } | undefined)?.outgoing;
  if (document) await recordProblems(document, method, request.url, res, outgoing?.getHeaders?.());
  return res;
}

/** JSON POST with the headers a same-site browser or an installer sends. */
export function postJson(body: unknown, headers: Record<string, string> = {}): RequestInit {
  return { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) };
}

/**
 * The usual set-up of a test file: one app on its own database for the whole file, reset (empty
 * tables, clock back at TEST_EPOCH) before each test and closed at the end. The returned object is
 * filled in by `beforeAll`, so use it inside tests and hooks only.
 */
export function useTestApp(env: Record<string, string> = {}, deps: () => TestDeps = () => ({})): TestApp {
  const t = {} as TestApp;
  beforeAll(async () => {
    Object.assign(t, await createTestApp(env, deps()));
  });
  beforeEach(() => t.reset());
  afterAll(() => t.close());
  return t;
}

/**
 * A second instance of `t`'s service, on the same database, keys and clock: on PostgreSQL with a connection
 * pool of its own, as another server would have; on PGlite on the one connection there is. `close` closes
 * only what it opened (the file's `t.close()` closes the rest).
 */
export async function openSecondInstance(
  t: TestApp,
  env: Record<string, string> = {},
): Promise<{ app: TestApp; close: () => Promise<void> }> {
  if (!t.database.url) return { app: buildTestApp(t.database, t.keys, env, t.clock), close: async () => {} };
  const handle = await openDatabase({ databaseUrl: t.database.url, dataDir: 'unused' });
  const database: TestDatabase = { ...handle, url: t.database.url, reset: t.database.reset };
  return { app: buildTestApp(database, t.keys, env, t.clock), close: () => handle.close() };
}
