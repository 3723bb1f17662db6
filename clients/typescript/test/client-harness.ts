/**
 * The client against the real app, two ways: in-process through an injected fetch, and over a real
 * HTTP socket. Suites run once per transport with `describe.each(transports)`.
 */
import { activations, installCodes } from '../../../src/db/schema.js';
import { sha256Hex } from '../../../src/domain/tokens/secret-hash.js';
import { serveOverHttp } from '../../../test/support/browser.js';
import { INSTALLER_VERSION, machine } from '../../../test/support/install-flow.js';
import { createTestApp, fetchChecked, type TestApp } from '../../../test/support/test-app.js';
export { INSTALLER_VERSION, machine, otherMachine } from '../../../test/support/install-flow.js';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { createClient, SlowdnsApiError, type ErrorCode, type SlowdnsClient } from '../src/index.js';

export interface ClientHarness {
  t: TestApp;
  client: SlowdnsClient;
  baseUrl: string;
  /** A client on the same transport at another base URL (a mistyped one, say). */
  clientAt(baseUrl: string): SlowdnsClient;
  /** A raw request through the same transport as the client, for what the client does not cover (the page). */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  /** Closes the database under the running service (its answers are then 503); `close` then leaves it. */
  closeDatabase(): Promise<void>;
  close(): Promise<void>;
}

export type Transport = (env?: Record<string, string>) => Promise<ClientHarness>;

export const inProcess: Transport = async (env = {}) => {
  const t = await createTestApp(env);
  const baseUrl = 'http://localhost:8080';
  // With no socket the app would key every caller as 'unknown'; give it the address a socket would.
  const fetch = (request: Request) =>
    fetchChecked(t.app, request, { incoming: { socket: { remoteAddress: '203.0.113.10' } } });
  const database = closableOnce(t);
  return {
    t,
    client: createClient({ baseUrl, fetch: async (request) => fetch(request) }),
    baseUrl,
    clientAt: (other) => createClient({ baseUrl: other, fetch: async (request) => fetch(request) }),
    fetch: async (path, init) => fetch(new Request(`${baseUrl}${path}`, init)),
    closeDatabase: database.close,
    close: database.close,
  };
};

export const overHttp: Transport = async (env = {}) => {
  let t: TestApp | undefined;
  const server = await serveOverHttp(
    async (origin) => (t = await createTestApp({ PUBLIC_BASE_URL: origin, ...env })).app,
  );
  const app = t!;
  const database = closableOnce(app);
  return {
    t: app,
    client: createClient({ baseUrl: server.origin }),
    baseUrl: server.origin,
    clientAt: (other) => createClient({ baseUrl: other }),
    fetch: (path, init) => fetch(`${server.origin}${path}`, init),
    closeDatabase: database.close,
    close: async () => {
      await server.close();
      await database.close();
    },
  };
};

/** The test app's close, made safe to call twice (closing a test database also drops it). */
function closableOnce(t: TestApp): { close(): Promise<void> } {
  let closing: Promise<void> | undefined;
  return { close: () => (closing ??= t.close()) };
}

/**
 * One harness for the enclosing describe block: opened once (handed to `use`), its database emptied before
 * each test and its clock set to `clock` when given, closed after the block.
 */
export function harnessPerSuite(
  transport: Transport,
  use: (harness: ClientHarness) => void,
  { clock }: { clock?: string } = {},
): void {
  let opened: ClientHarness | undefined;
  beforeAll(async () => {
    opened = await transport();
    use(opened);
  });
  beforeEach(async () => {
    await opened!.t.database.reset();
    if (clock) opened!.t.clock.set(clock);
  });
  afterAll(() => opened?.close());
}

/** The status of the install code `code` as the database holds it. */
export async function codeStatusOf(h: ClientHarness, code: string): Promise<string | undefined> {
  const [row] = await h.t.database.db
    .select()
    .from(installCodes)
    .where(eq(installCodes.codeHash, sha256Hex(code)));
  return row?.status;
}

/** The status of the activation `id` as the database holds it. */
export async function activationStatusOf(h: ClientHarness, id: string): Promise<string | undefined> {
  const [row] = await h.t.database.db.select().from(activations).where(eq(activations.id, id));
  return row?.status;
}

export const transports: [string, Transport][] = [
  ['in-process (injected fetch)', inProcess],
  ['over HTTP', overHttp],
];

/** The browser's part: load the page for a session, then issue a code with the client. */
export async function issueCode(h: ClientHarness): Promise<string> {
  return (await h.client.issueInstallCode({ browserSession: await browserSession(h) })).install_code;
}

export async function browserSession(h: ClientHarness): Promise<string> {
  const page = await h.fetch('/slowdns');
  const match = /slowdns_browser=([^;]+)/.exec(page.headers.get('set-cookie') ?? '');
  if (!match?.[1]) throw new Error('GET /slowdns set no session cookie');
  return match[1];
}

export const address = { hostname: 'vpn1.example.net', public_ip: '203.0.113.7' };

export function precheckBody(installCode: string, overrides: Record<string, unknown> = {}) {
  return {
    install_code: installCode,
    ...machine,
    product: 'slowdns' as const,
    installer_version: INSTALLER_VERSION,
    ...overrides,
  };
}

export function activateBody(installCode: string, precheckToken: string, overrides: Record<string, unknown> = {}) {
  return {
    install_code: installCode,
    precheck_token: precheckToken,
    ...address,
    ...machine,
    requested_ref: 'main',
    installer_version: INSTALLER_VERSION,
    ...overrides,
  };
}

/** The rejection of `promise`, which must be a SlowdnsApiError with this status and code. */
export async function apiError(promise: Promise<unknown>, status: number, code: ErrorCode): Promise<SlowdnsApiError> {
  const error = await promise.then(
    () => expect.fail(`expected ${status} ${code}, got a success`),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SlowdnsApiError);
  const apiErr = error as SlowdnsApiError;
  expect({ status: apiErr.status, code: apiErr.code }).toEqual({ status, code });
  expect(apiErr.message).toEqual(expect.any(String));
  expect(apiErr.message.length).toBeGreaterThan(0);
  expect(apiErr.requestId).toEqual(expect.any(String));
  return apiErr;
}
