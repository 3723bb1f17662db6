/**
 * Every error code of the contract, provoked against the real app and read through the typed client:
 * each arrives as a SlowdnsApiError with the answer's status, code, message and X-Request-Id.
 * Failures without the service's envelope (no answer, a proxy's page) are in network-errors.test.ts.
 */
import { readFile } from 'node:fs/promises';
import { sql } from 'drizzle-orm';
import { beforeAll, afterAll, beforeEach, describe, expect, it } from 'vitest';
import { revokeInstallCode } from '../../../src/domain/install-codes/revoke.js';
import { errorCodes } from '../../../src/errors.js';
import { hostKeyFolder } from '../../../test/support/ssh-host-keys.js';
import { SlowdnsApiError, signMachineProof, type CallOptions, type ErrorCode } from '../src/index.js';
import {
  activateBody,
  address,
  browserSession,
  INSTALLER_VERSION,
  issueCode,
  otherMachine,
  precheckBody,
  transports,
  type ClientHarness,
  type Transport,
} from './client-harness.js';

const ADMIN_TOKEN = 'operator-secret-0123456789abcdef0123456789';
const UNKNOWN_CODE = 'SDNS-SD-000000-000000-000000';
const report = { agent_version: INSTALLER_VERSION, uptime_seconds: 60, services: [] };

interface Case {
  code: ErrorCode;
  status: number;
  operation: string;
  message: string;
  retryAfterSeconds?: number;
  /** Sets the scene and makes the failing call with `o`, which carries the request id. */
  provoke(h: ClientHarness, o: CallOptions, transport: Transport): Promise<unknown>;
}

async function activated(h: ClientHarness) {
  const code = await issueCode(h);
  const precheck = await h.client.precheck(precheckBody(code));
  return { code, activation: await h.client.activate(activateBody(code, precheck.precheck_token)) };
}

async function registered(h: ClientHarness) {
  const { activation } = await activated(h);
  const body = {
    activation_id: activation.activation_id,
    install_token: activation.install_token,
    agent_version: INSTALLER_VERSION,
  };
  return { body, server: await h.client.register(body) };
}

const cases: Case[] = [
  {
    code: 'validation_failed',
    status: 400,
    operation: 'precheckInstallCode',
    message: 'The request is not valid. machine_id: must be the 32 lower-case hex characters of /etc/machine-id.',
    provoke: async (h, o) => h.client.precheck(precheckBody(await issueCode(h), { machine_id: 'not-hex' }), o),
  },
  {
    code: 'browser_session_required',
    status: 403,
    operation: 'issueInstallCode',
    message: 'Open the SlowDNS page first, then request an install code.',
    provoke: (h, o) => h.client.issueInstallCode(o),
  },
  {
    code: 'cross_site_request',
    status: 403,
    operation: 'issueInstallCode',
    message: 'Install codes can only be requested from the SlowDNS page itself.',
    // What a browser adds when another site's page posts to the service.
    provoke: async (h, o) =>
      h.client.issueInstallCode({
        ...o,
        browserSession: await browserSession(h),
        headers: { ...o.headers, origin: 'https://attacker.example' },
      }),
  },
  {
    code: 'machine_mismatch',
    status: 403,
    operation: 'activateInstallCode',
    message: 'This machine is not the one the precheck was made for.',
    provoke: async (h, o) => {
      const code = await issueCode(h);
      const precheck = await h.client.precheck(precheckBody(code));
      return h.client.activate(activateBody(code, precheck.precheck_token, { machine_id: otherMachine.machine_id }), o);
    },
  },
  {
    code: 'install_code_not_found',
    status: 404,
    operation: 'precheckInstallCode',
    message: 'No install code matches what was entered.',
    provoke: (h, o) => h.client.precheck(precheckBody(UNKNOWN_CODE), o),
  },
  {
    code: 'activation_not_found',
    status: 404,
    operation: 'releaseInstall',
    message: 'No activation has this id.',
    provoke: (h, o) => h.client.release({ activation_id: 'act_0000000000000000' }, o),
  },
  {
    code: 'server_not_found',
    status: 404,
    operation: 'revokeServer',
    message: 'No server has this id.',
    provoke: (h, o) => h.client.revoke(ADMIN_TOKEN, { server_id: 'srv_0000000000000000' }, o),
  },
  {
    code: 'install_code_expired',
    status: 410,
    operation: 'precheckInstallCode',
    message: 'This install code has expired. Request a new one on the SlowDNS page.',
    provoke: async (h, o) => {
      const code = await issueCode(h);
      h.t.clock.advance(901);
      return h.client.precheck(precheckBody(code), o);
    },
  },
  {
    code: 'install_code_revoked',
    status: 410,
    operation: 'precheckInstallCode',
    message: 'This install code was revoked. Request a new one on the SlowDNS page.',
    provoke: async (h, o) => {
      const issued = await h.client.issueInstallCode({ browserSession: await browserSession(h) });
      await revokeInstallCode(h.t.database.db, issued.install_code_id, h.t.clock.now(), { actor: 'operator' });
      return h.client.precheck(precheckBody(issued.install_code), o);
    },
  },
  {
    code: 'install_code_unavailable',
    status: 409,
    operation: 'precheckInstallCode',
    message: 'This install code is already in use by an activation.',
    provoke: async (h, o) => h.client.precheck(precheckBody((await activated(h)).code), o),
  },
  {
    code: 'machine_duplicate',
    status: 409,
    operation: 'activateInstallCode',
    message:
      'This machine_id is already in use by another installed server (a cloned image?). Give this machine its own identity (rm -f /etc/machine-id && systemd-machine-id-setup; rm -f /etc/ssh/ssh_host_* && ssh-keygen -A) and run the installer again.',
    // Its own app, refusing duplicates: the first machine installed proving its SSH host key (DESIGN §24), then a
    // clone with the same machine_id and another SSH key that proves nothing.
    provoke: async (_h, o, transport) => {
      const refusing = await transport({ DUPLICATE_MACHINE_POLICY: 'refuse' });
      const folder = await hostKeyFolder();
      try {
        const key = await folder.make('ed25519');
        const code = await issueCode(refusing);
        const precheck = await refusing.client.precheck(precheckBody(code, { ssh_fingerprint: key.fingerprint }));
        const proof = signMachineProof(await readFile(key.file, 'utf8'), {
          serviceOrigin: refusing.baseUrl,
          challenge: precheck.proof_challenge,
          machineId: precheckBody(code).machine_id,
          hostname: address.hostname,
          publicIp: address.public_ip,
        });
        const activation = await refusing.client.activate(
          activateBody(code, precheck.precheck_token, { ssh_fingerprint: key.fingerprint, ...proof }),
        );
        await refusing.client.confirm({
          activation_id: activation.activation_id,
          install_token: activation.install_token,
        });
        const next = await issueCode(refusing);
        const clone = { ssh_fingerprint: otherMachine.ssh_fingerprint };
        const clonePrecheck = await refusing.client.precheck(precheckBody(next, clone));
        return await refusing.client.activate(activateBody(next, clonePrecheck.precheck_token, clone), o);
      } finally {
        await folder.cleanUp();
        await refusing.close();
      }
    },
  },
  {
    code: 'install_token_used',
    status: 409,
    operation: 'registerServer',
    message: 'This install token has already been used.',
    // A confirm repeated by the token's holder reads the first one back (200, DESIGN §20): a register after
    // confirm is where the used token is refused.
    provoke: async (h, o) => {
      const { activation } = await activated(h);
      await h.client.confirm({ activation_id: activation.activation_id, install_token: activation.install_token });
      const body = {
        activation_id: activation.activation_id,
        install_token: activation.install_token,
        agent_version: INSTALLER_VERSION,
      };
      return h.client.register(body, o);
    },
  },
  {
    code: 'activation_released',
    status: 409,
    operation: 'confirmInstall',
    message: 'This activation was released; start again with the install code.',
    provoke: async (h, o) => {
      const { activation } = await activated(h);
      await h.client.release({ activation_id: activation.activation_id });
      return h.client.confirm({ activation_id: activation.activation_id, install_token: activation.install_token }, o);
    },
  },
  {
    code: 'activation_confirmed',
    status: 409,
    operation: 'releaseInstall',
    message: 'This activation is already confirmed.',
    provoke: async (h, o) => {
      const { activation } = await activated(h);
      await h.client.confirm({ activation_id: activation.activation_id, install_token: activation.install_token });
      return h.client.release({ activation_id: activation.activation_id }, o);
    },
  },
  {
    code: 'server_already_registered',
    status: 409,
    operation: 'registerServer',
    message: 'A server is already registered for this activation.',
    // A register repeated before the first check-in answers a new agent token (DESIGN §20): after it, 409.
    provoke: async (h, o) => {
      const { body, server } = await registered(h);
      await h.client.checkin(server.agent_token, report);
      return h.client.register(body, o);
    },
  },
  {
    code: 'precheck_token_invalid',
    status: 401,
    operation: 'activateInstallCode',
    message: 'The precheck token is invalid or expired; run the precheck again.',
    provoke: async (h, o) => h.client.activate(activateBody(await issueCode(h), 'eyJhbGciOiJFZERTQSJ9.e30.c2ln'), o),
  },
  {
    code: 'install_token_invalid',
    status: 401,
    operation: 'confirmInstall',
    message: 'This install token belongs to another activation.',
    // Another activation's (well-signed) token.
    provoke: async (h, o) => {
      const first = await activated(h);
      await h.client.release({ activation_id: first.activation.activation_id });
      const second = await activated(h);
      return h.client.confirm(
        { activation_id: second.activation.activation_id, install_token: first.activation.install_token },
        o,
      );
    },
  },
  {
    code: 'agent_token_invalid',
    status: 401,
    operation: 'checkInServer',
    message: 'The agent token is missing or invalid.',
    provoke: (h, o) => h.client.checkin('not-an-agent-token', report, o),
  },
  {
    code: 'agent_token_invalid',
    status: 401,
    operation: 'getStatus',
    message: 'The agent token is missing or invalid.',
    provoke: (h, o) => h.client.status('not-an-agent-token', o),
  },
  {
    code: 'agent_token_invalid',
    status: 401,
    operation: 'revokeServer',
    message: 'The agent token is missing or invalid.',
    provoke: (h, o) => h.client.revoke('not-an-agent-token', undefined, o),
  },
  {
    code: 'admin_token_invalid',
    status: 401,
    operation: 'revokeServer',
    message: 'The operator token is missing or invalid.',
    provoke: (h, o) => h.client.revoke(`${ADMIN_TOKEN}-but-not-quite`, { server_id: 'srv_0000000000000000' }, o),
  },
  {
    code: 'installer_outdated',
    status: 426,
    operation: 'precheckInstallCode',
    message: `This installer (2026.11.19.1) is older than ${INSTALLER_VERSION}, the oldest this service accepts. Download the current installer.`,
    // MIN_INSTALLER_VERSION is INSTALLER_VERSION here; the version is checked before the code is looked up.
    provoke: (h, o) => h.client.precheck(precheckBody(UNKNOWN_CODE, { installer_version: '2026.11.19.1' }), o),
  },
  {
    code: 'rate_limit_exceeded',
    status: 429,
    operation: 'precheckInstallCode',
    message:
      'Limit precheck-ip-day reached: 10 prechecks per IP address per UTC day. Try again in 14 hours (after 00:00 UTC).',
    // The test clock stands at 10:00:00Z: the day bucket ends 14 hours later.
    retryAfterSeconds: 14 * 3600,
    provoke: async (h, o) => {
      const code = await issueCode(h);
      for (let i = 0; i < 10; i++) await h.client.precheck(precheckBody(code));
      return h.client.precheck(precheckBody(code), o);
    },
  },
  {
    code: 'not_found',
    status: 404,
    operation: 'getHealth',
    message: 'No such route.',
    // The client appends the contract's paths to baseUrl: a base URL with a path the service does not have.
    provoke: (h, o) => h.clientAt(`${h.baseUrl}/activation`).healthz(o),
  },
  {
    code: 'payload_too_large',
    status: 413,
    operation: 'checkInServer',
    message: 'The request body is larger than 8 KiB.',
    // An agent watching far more services than a check-in may carry: the 8 KiB limit answers before validation.
    provoke: async (h, o) => {
      const { server } = await registered(h);
      const services = Array.from({ length: 64 }, (_, i) => ({
        name: `${'x'.repeat(120)}-${i}.service`,
        state: 'active' as const,
      }));
      return h.client.checkin(server.agent_token, { ...report, services }, o);
    },
  },
  {
    code: 'unsupported_media_type',
    status: 415,
    operation: 'precheckInstallCode',
    message: 'Send the request body as application/json.',
    // The client sends JSON unless told otherwise: a form Content-Type makes openapi-fetch send a form body.
    provoke: (h, o) =>
      h.client.precheck(precheckBody(UNKNOWN_CODE), {
        ...o,
        headers: { ...o.headers, 'content-type': 'application/x-www-form-urlencoded' },
      }),
  },
  {
    code: 'internal_error',
    status: 500,
    operation: 'precheckInstallCode',
    message: 'Something went wrong on our side. Try again later.',
    // A real failing query, as after a botched manual migration (cf. test/foundation/error-logging.test.ts).
    provoke: async (h, o) => {
      await h.t.database.db.execute(sql.raw('alter table install_codes rename to install_codes_moved'));
      try {
        return await h.client.precheck(precheckBody(UNKNOWN_CODE), o);
      } finally {
        await h.t.database.db.execute(sql.raw('alter table install_codes_moved rename to install_codes'));
      }
    },
  },
  {
    code: 'service_unavailable',
    status: 503,
    operation: 'precheckInstallCode',
    message: 'The service cannot reach its database right now. Try again shortly.',
    retryAfterSeconds: 1,
    // Its own app: the database is closed under the running service.
    provoke: async (_h, o, transport) => {
      const down = await transport();
      try {
        await down.closeDatabase();
        return await down.client.precheck(precheckBody(UNKNOWN_CODE), o);
      } finally {
        await down.close();
      }
    },
  },
];

describe.each(transports)('error answers through the typed client, %s', (_name, transport) => {
  let h: ClientHarness;
  beforeAll(async () => {
    h = await transport({ ADMIN_TOKEN, MIN_INSTALLER_VERSION: INSTALLER_VERSION });
  });
  beforeEach(() => h.t.reset());
  afterAll(() => h?.close());

  it.each(cases.map((c) => [`${c.code} (${c.status}) from ${c.operation}`, c] as const))('%s', async (_title, c) => {
    const requestId = `mapping-${c.operation}-${c.code}`;
    const error = await c.provoke(h, { headers: { 'X-Request-Id': requestId } }, transport).then(
      () => expect.fail('expected an error answer, got a success'),
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SlowdnsApiError);
    const { status, code, message, operation, retryAfterSeconds } = error as SlowdnsApiError;
    expect({
      status,
      code,
      message,
      operation,
      retryAfterSeconds,
      requestId: (error as SlowdnsApiError).requestId,
    }).toEqual({
      status: c.status,
      code: c.code,
      message: c.message,
      operation: c.operation,
      retryAfterSeconds: c.retryAfterSeconds,
      requestId,
    });
  });

  it('without an X-Request-Id the error carries the one the service made up', async () => {
    const error = await h.client.release({ activation_id: 'act_0000000000000000' }).catch((e: unknown) => e);
    expect((error as SlowdnsApiError).requestId).toMatch(/^[0-9a-f-]{36}$/);
  });

  // Every typed method sends its operation's own method, so the client never meets a 405. A hand-written
  // request (`curl -X GET …/register` in a shell installer) does, and gets the same envelope with Allow.
  it('method_not_allowed (405) is out of the typed client’s reach, so a raw request meets it as the envelope', async () => {
    const res = await h.fetch('/register', { headers: { 'X-Request-Id': 'mapping-raw-get-register' } });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    expect(res.headers.get('x-request-id')).toBe('mapping-raw-get-register');
    expect(await res.json()).toEqual({
      error: { code: 'method_not_allowed', message: 'This route does not accept that method.' },
    });
  });
});

it('the cases above cover every error code of the contract', () => {
  // Out of the typed client's reach: 405 (it only sends documented methods), the admin API's
  // disabled answer, scope refusal, unknown override and unknown operator token (the client has no admin methods; test/admin covers them), and the answers to a request
  // the server cuts before routing (fetch sends well-formed HTTP whole; test/outage/slow-clients.test.ts),
  // and the webhook admin routes' own codes (no client method; test/webhooks covers them).
  const beforeRouting = ['malformed_request', 'request_timeout', 'request_headers_too_large'];
  const webhookAdmin = [
    'webhook_url_not_allowed',
    'webhook_endpoint_not_found',
    'webhook_delivery_not_found',
    'webhook_endpoint_limit_reached',
    'key_encryption_required',
  ];
  // A token-less release from an address other than activate's: the in-process and loopback clients share
  // one address; test/lifecycle/release-proof.test.ts asserts it.
  const releaseProof = ['release_not_allowed'];
  // The approval's codes need a person's browser session on the other side: the client's waiting meets
  // approval_pending and approval_denied in clients/typescript/test/approval-wait.test.ts, and every one of
  // them is asserted as the envelope in test/approval/approval.test.ts.
  const approval = ['approval_pending', 'approval_denied', 'approval_decided', 'precheck_not_found'];
  // The refusals of an operator's fleet code (DESIGN §22), asserted as the envelope in test/fleet-codes/.
  const fleetCodes = [
    'install_code_exhausted',
    'install_code_address_not_allowed',
    'install_code_hostname_not_allowed',
  ];
  // The machine's proof (DESIGN §24), asserted as the envelope in test/machine-proof/refusals.test.ts; the
  // client's own signing in clients/typescript/test/machine-proof.test.ts.
  const machineProof = ['machine_proof_invalid', 'machine_proof_required'];
  // Codeless enrollment's refusals (DESIGN §25): they need a real OpenID provider on loopback, so the client meets
  // each of them in clients/typescript/test/identity-enrollment.test.ts (and test/identity/ asserts the envelope).
  const identity = [
    'identity_token_required',
    'identity_token_invalid',
    'identity_not_allowed',
    'identity_token_replayed',
    'identity_issuer_unavailable',
  ];
  // The admin API's own (no client method): Idempotency-Key's refusals (test/admin/idempotency-keys.test.ts),
  // a chat endpoint's rotate-secret (test/webhooks) and an operator's approve of a page code's precheck
  // (test/approval/operator-on-page-code.test.ts).
  const adminOnly = [
    'idempotency_key_mismatch',
    'idempotency_key_in_flight',
    'webhook_endpoint_unsigned',
    'approval_not_operators',
  ];
  const covered = new Set<string>([
    ...cases.map((c) => c.code),
    'method_not_allowed',
    'admin_api_disabled',
    'admin_scope_insufficient',
    'rate_limit_override_not_found',
    'operator_token_not_found',
    ...beforeRouting,
    ...webhookAdmin,
    ...approval,
    ...fleetCodes,
    ...releaseProof,
    ...machineProof,
    ...identity,
    ...adminOnly,
  ]);
  expect([...covered].sort()).toEqual([...errorCodes].sort());
});
