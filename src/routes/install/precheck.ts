import { createRoute } from '@hono/zod-openapi';
import { toIsoOffset, wholeSecond } from '../../clock.js';
import { installCodeHint } from '../../domain/install-codes/code-format.js';
import { identityPrecheckJti } from '../../domain/identity/identity-precheck.js';
import type { VerifiedIdentity } from '../../domain/identity/identity-token.js';
import { identityPrecheck } from '../../http/identity-steps.js';
import { precheckInstallCode } from '../../domain/install-codes/precheck.js';
import { assertInstallerSupported } from '../../domain/activations/installer-version.js';
import { randomId, randomSecret } from '../../domain/tokens/secret-hash.js';
import { signPrecheckToken } from '../../domain/tokens/install-step-tokens.js';
import { checksFor } from '../../domain/rate-limits/limiter.js';
import { changeContext } from '../../http/change-context.js';
import { admitCounted, checkSources } from '../../http/enforce-rate-limits.js';
import { jsonBody } from '../../http/json-body.js';
import { rateLimitDescription, rateLimitedResponse, rateLimitHeaderDocs } from '../../http/rate-limit-headers.js';
import type { Router } from '../../http/router.js';
import { PrecheckRequestSchema, PrecheckResultSchema } from '../../schemas/activation.js';
import { errorResponses, successEnvelope } from '../../schemas/envelope.js';
import type { RouteDeps } from '../../deps.js';
import { prose } from '../../openapi-prose.js';
import { noStore, noStoreHeader } from '../../http/no-store.js';

const precheck = createRoute({
  middleware: [noStore],
  method: 'post',
  path: '/api/v2/slowdns/install/precheck',
  operationId: 'precheckInstallCode',
  tags: ['install'],
  // No credential header: the install code, the signed tokens and the activation id travel in the body.
  security: [],
  summary: 'Precheck an install code',
  description: prose`Called by the installer right after the code is entered, before hostname, tunnel domain or public IP are
    collected. Checks the code (it must be \`issued\` and unexpired; a code revoked by an operator or
    cancelled on the page is 410 \`install_code_revoked\`) and the machine identity, and answers a precheck
    token bound to both. The token lasts \`PRECHECK_TOKEN_TTL_SECONDS\` (900 by default) but never beyond the
    code's own expiry. A precheck changes no state of the code; it counts in the rate limits below, and the
    machine (its id, SSH fingerprint and the address the request came from) is noted for the page that issued
    the code (\`GET /api/v2/slowdns/code/status\`). \`observed_ip\` is the address the request came from, as
    the service saw it: an installer can propose it as the public IP without asking a third party.

**A code issued with approval** (DESIGN §14; \`{"require_approval": true}\` at issue, or
    \`APPROVAL_POLICY=required\`) answers \`approval: "pending"\` and a \`precheck_id\`: the page that issued
    the code shows this precheck (the address, the shortened machine id, the SSH fingerprint, the installer
    version, the time) to the person, who approves or denies it. Each precheck of such a code is a new one the
    person decides on; approval binds the code to that precheck's token alone. A code issued without approval
    answers exactly as it always did: no \`approval\`, no \`precheck_id\`. A code the person denied answers
    403 \`approval_denied\`; once the person approved a precheck, any other precheck of the code answers 403
    \`machine_mismatch\` at once (only the approved precheck's token can activate) and the page keeps showing
    the approved machine.

**A code an operator issued** (\`createInstallCode\`, DESIGN §22) may be bound to networks: from an address
    outside its \`allowed_cidrs\` the precheck is 403 \`install_code_address_not_allowed\`. A code with \`uses\` > 1
    none of whose uses is free is 409 \`install_code_exhausted\`; inside its own \`allowed_cidrs\` such a code counts
    in its own bucket (600 prechecks a minute) instead of the per-IP limit.

**Proving the machine** (DESIGN §24): every precheck answers a new \`proof_challenge\` (carried in its token)
    for activate's \`ssh_key_signature\`, and \`machine_proof\`: \`required\` when activate must carry a proof
    (\`MACHINE_PROOF=required\`, or a fleet code made with \`require_machine_proof\`), \`optional\` otherwise.

Order of checks: the body (400 \`validation_failed\`), the installer version (426 \`installer_outdated\`),
    then the limits, then the code: a precheck of an unknown or expired code still counts (an unknown one only
    per IP, below).

${rateLimitDescription('precheck')}`,
  request: jsonBody(PrecheckRequestSchema),
  responses: {
    200: {
      description: 'The code is usable on this machine.',
      headers: { ...rateLimitHeaderDocs('precheck'), ...noStoreHeader('the precheck token') },
      content: {
        'application/json': {
          schema: successEnvelope(PrecheckResultSchema),
          example: {
            data: {
              install_code: 'SDNS-SD-7K3MQ2-XR9T4B-HX3W8N',
              install_code_hint: 'SDNS-SD-…HX3W8N',
              precheck_token: 'eyJhbGciOiJFZERTQSIsInR5cCI6InNsb3dkbnMtcHJlY2hlY2srand0In0.e30.c2ln',
              precheck_expires_at: '2026-11-22T10:15:00+00:00',
              machine_binding: {
                machine_id: '4c4c4544003957108052b4c04f384833',
                ssh_fingerprint: 'SHA256:nThbg6kXUpJWGl7E1IGOCspRomTxdCARLviKw6E5SY8',
              },
              observed_ip: '203.0.113.7',
              proof_challenge: 'q2Yb0QhM3x9tW7cJvE5nK1pLr8sA4dFgH6jZuXoViTc',
              machine_proof: 'optional',
            },
            meta: { message: 'Install code is valid for this machine.' },
          },
        },
      },
    },
    ...errorResponses(
      'validation_failed',
      'install_code_not_found',
      'install_code_unavailable',
      'install_code_expired',
      'install_code_revoked',
      'machine_mismatch',
      'approval_denied',
      'install_code_exhausted',
      'install_code_address_not_allowed',
      'identity_token_required',
      'identity_token_invalid',
      'identity_not_allowed',
      'identity_token_replayed',
      'identity_issuer_unavailable',
      'installer_outdated',
      'unsupported_media_type',
      'payload_too_large',
    ),
    429: rateLimitedResponse('precheck'),
  },
});

const APPROVAL_PENDING_MESSAGE =
  'Install code is valid for this machine. Its owner approves this machine on the SlowDNS page before activate can succeed.';

export function registerPrecheck(app: Router, deps: RouteDeps): void {
  app.openapi(precheck, async (c) => {
    const body = c.req.valid('json');
    assertInstallerSupported(body.installer_version, deps.config.minInstallerVersion);
    const now = deps.clock.now();
    const observed = c.get('observedIp');
    const sighting = {
      machineId: body.machine_id,
      sshFingerprint: body.ssh_fingerprint,
      ip: observed,
      installerVersion: body.installer_version,
    };
    const limits = checksFor(
      'precheck',
      { ip: c.get('clientKey'), machine: body.machine_id },
      await checkSources(deps, now),
    );
    const precheckId = randomId('pc_', 8);
    const identityForm = body.install_code_id !== undefined && body.identity_token !== undefined;
    const counted = identityForm
      ? await identityPrecheck(c, deps, {
          codeId: body.install_code_id!,
          token: body.identity_token!,
          sighting,
          precheckId,
          limits,
          now,
        })
      : await precheckInstallCode(deps.db, {
          input: {
            code: { normalisedCode: body.install_code!, prefix: deps.config.installCodePrefix },
            sighting,
            precheckId,
          },
          now,
          limits,
          hashes: deps.keyedHashes,
          context: changeContext(c, 'installer'),
        });
    const code = admitCounted(c, counted);
    const identity = 'identity' in code ? (code.identity as VerifiedIdentity) : undefined;
    const shown = code.approval === 'pending' ? precheckId : undefined;
    const expiresAt = wholeSecond(
      new Date(Math.min(now.getTime() + deps.config.precheckTokenTtlSeconds * 1000, code.expiresAt.getTime())),
    );
    // What activate's machine proof signs (DESIGN §24): unpredictable, so no signature can be made ahead of it.
    const challenge = randomSecret();
    const token = await signPrecheckToken(
      deps.keys,
      {
        codeHash: code.codeHash,
        machineId: body.machine_id,
        sshFingerprint: body.ssh_fingerprint,
        precheckId: shown,
        challenge,
        clientKeyHash: c.get('keyedHashes').clientKey(c.get('clientKey')),
        identity: identity && { iss: identity.iss, sub: identity.sub, tags: identity.tags },
      },
      now,
      expiresAt,
      identity && identityPrecheckJti(identity, code),
    );
    return c.json(
      {
        data: {
          ...(identity
            ? { install_code_id: code.id, identity: { iss: identity.iss, sub: identity.sub } }
            : { install_code: body.install_code! }),
          install_code_hint: identity ? code.hint : installCodeHint(body.install_code!),
          precheck_token: token,
          precheck_expires_at: toIsoOffset(expiresAt),
          machine_binding: { machine_id: body.machine_id, ssh_fingerprint: body.ssh_fingerprint },
          observed_ip: observed,
          proof_challenge: challenge,
          machine_proof: code.requireMachineProof ? ('required' as const) : deps.config.machineProof,
          // A code issued without approval answers exactly as before approval existed.
          ...(shown === undefined ? {} : { approval: code.approval, approval_by: code.approvalBy, precheck_id: shown }),
        },
        meta: { message: shown === undefined ? 'Install code is valid for this machine.' : APPROVAL_PENDING_MESSAGE },
      },
      200,
    );
  });
}
