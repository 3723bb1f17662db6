import { eq } from 'drizzle-orm';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { activations, installCodes } from '../../../src/db/schema.js';
import { sha256Hex } from '../../../src/domain/secret-hash.js';
import { createClient, SlowdnsApiError, SlowdnsNetworkError, SlowdnsUnexpectedResponseError } from '../src/index.js';
import { activateBody, apiError, browserSession, issueCode, machine, otherMachine, precheckBody, transports, type ClientHarness } from './client-harness.js';

describe.each(transports)('the typed client, %s', (_name, transport) => {
  let h: ClientHarness;
  beforeAll(async () => {
    h = await transport();
  });
  beforeEach(() => h.t.database.reset());
  afterAll(() => h?.close());

  const codeStatus = async (code: string) =>
    (await h.t.database.db.select().from(installCodes).where(eq(installCodes.codeHash, sha256Hex(code))))[0]?.status;

  /** Issue → precheck → activate through the client. */
  async function activated() {
    const code = await issueCode(h);
    const precheck = await h.client.precheck(precheckBody(code));
    return { code, activation: await h.client.activate(activateBody(code, precheck.precheck_token)) };
  }

  it('healthz answers the unwrapped data', async () => {
    expect(await h.client.healthz()).toEqual({ status: 'ok' });
  });

  it('a whole install: issue → precheck → activate → confirm, with typed results', async () => {
    const issued = await h.client.issueInstallCode({ browserSession: await browserSession(h) });
    expect(issued).toEqual({
      install_code: expect.stringMatching(/^SDNS-SD-\w{6}-\w{6}-\w{6}$/),
      install_code_hint: `SDNS-SD-…${issued.install_code.slice(-6)}`,
      expires_at: '2026-11-22T10:15:00.000+00:00',
      ttl_seconds: 900,
    });

    // The service forgives case and spaces; the client passes the code as typed.
    const precheck = await h.client.precheck(precheckBody(` ${issued.install_code.toLowerCase()} `));
    expect(precheck).toEqual({
      install_code: issued.install_code,
      install_code_hint: issued.install_code_hint,
      precheck_token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
      precheck_expires_at: '2026-11-22T10:15:00.000+00:00',
      machine_binding: machine,
    });

    const activation = await h.client.activate(activateBody(issued.install_code, precheck.precheck_token));
    expect(activation).toEqual({
      activation_id: expect.stringMatching(/^act_[0-9a-f]{16}$/),
      install_token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
      install_token_expires_at: '2026-11-22T11:00:00.000+00:00',
      install_code: issued.install_code,
      machine_binding: { hostname: 'vpn1.example.net', public_ip: '203.0.113.7', ...machine },
    });
    expect(await codeStatus(issued.install_code)).toBe('activated');

    expect(await h.client.confirm({ activation_id: activation.activation_id, install_token: activation.install_token })).toEqual({
      activation_id: activation.activation_id,
      status: 'confirmed',
    });
    expect(await codeStatus(issued.install_code)).toBe('consumed');
  });

  it('release restores the code, and says so', async () => {
    const { code, activation } = await activated();
    expect(await h.client.release({ activation_id: activation.activation_id })).toEqual({
      activation_id: activation.activation_id,
      status: 'released',
      install_code_restored: true,
    });
    expect(await codeStatus(code)).toBe('issued');
  });

  describe('every error answer is a SlowdnsApiError with the contract code', () => {
    it('validation_failed (400): a malformed machine id', async () => {
      const error = await apiError(h.client.precheck(precheckBody(await issueCode(h), { machine_id: 'not-hex' })), 400, 'validation_failed');
      expect(error.message).toContain('machine_id');
      expect(error.operation).toBe('precheckInstallCode');
    });

    it('install_code_not_found (404): a well-formed code nobody issued', async () => {
      await apiError(h.client.precheck(precheckBody('SDNS-SD-000000-000000-000000')), 404, 'install_code_not_found');
    });

    it('install_code_expired (410): precheck after the code lifetime', async () => {
      const code = await issueCode(h);
      h.t.clock.advance(901);
      try {
        await apiError(h.client.precheck(precheckBody(code)), 410, 'install_code_expired');
      } finally {
        h.t.clock.set('2026-11-22T10:00:00.000Z');
      }
    });

    it('install_code_unavailable (409): precheck of a code another activation holds', async () => {
      const { code } = await activated();
      await apiError(h.client.precheck(precheckBody(code)), 409, 'install_code_unavailable');
    });

    it('precheck_token_invalid (401): a token that was never signed', async () => {
      const code = await issueCode(h);
      await apiError(h.client.activate(activateBody(code, 'eyJhbGciOiJFZERTQSJ9.e30.c2ln')), 401, 'precheck_token_invalid');
    });

    it('machine_mismatch (403): activate from another machine than the precheck', async () => {
      const code = await issueCode(h);
      const precheck = await h.client.precheck(precheckBody(code));
      await apiError(h.client.activate(activateBody(code, precheck.precheck_token, { machine_id: otherMachine.machine_id })), 403, 'machine_mismatch');
    });

    it('install_token_invalid (401): confirm with another activation’s token', async () => {
      const first = await activated();
      await h.client.release({ activation_id: first.activation.activation_id });
      const second = await activated();
      await apiError(
        h.client.confirm({ activation_id: second.activation.activation_id, install_token: first.activation.install_token }),
        401,
        'install_token_invalid',
      );
    });

    it('install_token_used (409): a second confirm', async () => {
      const { activation } = await activated();
      const body = { activation_id: activation.activation_id, install_token: activation.install_token };
      await h.client.confirm(body);
      await apiError(h.client.confirm(body), 409, 'install_token_used');
    });

    it('activation_released (409): confirm after release', async () => {
      const { activation } = await activated();
      await h.client.release({ activation_id: activation.activation_id });
      await apiError(h.client.confirm({ activation_id: activation.activation_id, install_token: activation.install_token }), 409, 'activation_released');
    });

    it('activation_confirmed (409): release after confirm', async () => {
      const { activation } = await activated();
      await h.client.confirm({ activation_id: activation.activation_id, install_token: activation.install_token });
      await apiError(h.client.release({ activation_id: activation.activation_id }), 409, 'activation_confirmed');
    });

    it('activation_not_found (404): release of an unknown activation', async () => {
      await apiError(h.client.release({ activation_id: 'act_0000000000000000' }), 404, 'activation_not_found');
    });

    it('browser_session_required (403): issue without a session', async () => {
      await apiError(h.client.issueInstallCode(), 403, 'browser_session_required');
    });

    it('rate_limit_exceeded (429): the 11th precheck of the day, with Retry-After until UTC midnight', async () => {
      const code = await issueCode(h);
      for (let i = 0; i < 10; i++) await h.client.precheck(precheckBody(code));
      const error = await apiError(h.client.precheck(precheckBody(code)), 429, 'rate_limit_exceeded');
      // The test clock stands at 10:00:00Z: the day bucket ends 14 hours later.
      expect(error.retryAfterSeconds).toBe(14 * 3600);
    });

    it('carries the X-Request-Id of the answer', async () => {
      const error = await apiError(
        h.client.release({ activation_id: 'act_0000000000000000' }, { headers: { 'X-Request-Id': 'installer-run-42' } }),
        404,
        'activation_not_found',
      );
      expect(error.requestId).toBe('installer-run-42');
      expect(error.retryAfterSeconds).toBeUndefined();
    });
  });

  it('the activation row agrees with what the client was told', async () => {
    const { activation } = await activated();
    await h.client.release({ activation_id: activation.activation_id });
    const [row] = await h.t.database.db.select().from(activations).where(eq(activations.id, activation.activation_id));
    expect(row?.status).toBe('released');
  });
});

describe('failures that are not the service saying no', () => {
  it('a closed port is a SlowdnsNetworkError, not an API error', async () => {
    const port = await closedPort();
    const client = createClient({ baseUrl: `http://127.0.0.1:${port}` });
    const error = await client.healthz().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SlowdnsNetworkError);
    expect(error).not.toBeInstanceOf(SlowdnsApiError);
    expect((error as SlowdnsNetworkError).operation).toBe('getHealth');
    expect((error as SlowdnsNetworkError).url).toBe(`http://127.0.0.1:${port}/api/v2/healthz`);
    expect(((error as Error).cause as { cause?: { code?: string } }).cause?.code).toBe('ECONNREFUSED');
  });

  it('an aborted request is a SlowdnsNetworkError whose cause is the abort', async () => {
    const client = createClient({ baseUrl: 'http://localhost', fetch: (request) => new Promise((_, reject) => request.signal.addEventListener('abort', () => reject(request.signal.reason))) });
    const controller = new AbortController();
    const pending = client.healthz({ signal: controller.signal }).catch((e: unknown) => e);
    controller.abort(new Error('operator pressed Ctrl-C'));
    const error = await pending;
    expect(error).toBeInstanceOf(SlowdnsNetworkError);
    expect((error as Error).cause).toEqual(new Error('operator pressed Ctrl-C'));
  });

  it('a proxy’s HTML error page is a SlowdnsUnexpectedResponseError with its status', async () => {
    const client = createClient({
      baseUrl: 'http://localhost',
      fetch: async () => new Response('<html><body>502 Bad Gateway</body></html>', { status: 502, headers: { 'content-type': 'text/html', 'x-request-id': 'edge-1' } }),
    });
    const error = await client.precheck(precheckBody('SDNS-SD-000000-000000-000000')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SlowdnsUnexpectedResponseError);
    expect(error).toMatchObject({ status: 502, requestId: 'edge-1', operation: 'precheckInstallCode', bodyExcerpt: expect.stringContaining('502 Bad Gateway') });
  });

  it('a 200 whose body is not JSON is a SlowdnsUnexpectedResponseError', async () => {
    const client = createClient({ baseUrl: 'http://localhost', fetch: async () => new Response('ok', { status: 200 }) });
    await expect(client.healthz()).rejects.toMatchObject({ name: 'SlowdnsUnexpectedResponseError', status: 200 });
  });
});

/** A port nothing listens on: bound once by us, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
