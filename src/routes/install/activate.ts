import { createRoute } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { toIsoOffset } from '../../clock.js';
import { activateInstallCode } from '../../domain/activations/activate.js';
import { signInstallToken } from '../../domain/tokens/install-step-tokens.js';
import { checksFor } from '../../domain/rate-limits/limiter.js';
import { approvalWaitPolicy } from '../../domain/rate-limits/policies.js';
import { normaliseAddress } from '../../domain/client-addresses.js';
import { admitCounted, checkSources } from '../../http/enforce-rate-limits.js';
import { jsonBody } from '../../http/json-body.js';
import { sentJsonBody } from '../../http/sent-json-body.js';
import { rateLimitDescription, rateLimitedResponse, rateLimitHeaderDocs } from '../../http/rate-limit-headers.js';
import { changeContext } from '../../http/change-context.js';
import type { Router } from '../../http/router.js';
import { ActivateRequestSchema, ActivationSchema } from '../../schemas/activation.js';
import { errorResponses, successEnvelope } from '../../schemas/envelope.js';
import type { RouteDeps } from '../../deps.js';
import { prose } from '../../openapi-prose.js';
import { noStore, noStoreHeader } from '../../http/no-store.js';

const activateErrors = errorResponses(
  'validation_failed',
  'precheck_token_invalid',
  'machine_mismatch',
  'machine_proof_invalid',
  'machine_proof_required',
  'approval_denied',
  'install_code_not_found',
  'install_code_unavailable',
  'approval_pending',
  'machine_duplicate',
  'install_code_exhausted',
  'install_code_address_not_allowed',
  'install_code_hostname_not_allowed',
  'install_code_expired',
  'install_code_revoked',
  'identity_token_required',
  'identity_not_allowed',
  'installer_outdated',
  'unsupported_media_type',
  'payload_too_large',
);

const activate = createRoute({
  middleware: [noStore],
  method: 'post',
  path: '/api/v2/slowdns/install/activate',
  operationId: 'activateInstallCode',
  tags: ['install'],
  // No credential header: the install code, the signed tokens and the activation id travel in the body.
  security: [],
  summary: 'Activate an install code',
  description: prose`Called by the installer only after the operator confirmed the final hostname and public IP. Presents the
    precheck token with the same install code and machine identity it was made for. In one transaction the
    code goes from \`issued\` to \`activated\` and an activation is created with a single-use install token
    valid for \`INSTALL_TOKEN_TTL_SECONDS\` (3600 by default). Of concurrent activations of one code exactly
    one makes an activation; the others get 409 \`install_code_unavailable\`, unless they repeat that one's
    request (below). A code revoked since the precheck is 410 \`install_code_revoked\`.

A precheck token that is tampered with, expired, of another kind or for another code is 401
    \`precheck_token_invalid\`; a different \`machine_id\` or \`ssh_fingerprint\` than the precheck's is 403
    \`machine_mismatch\`.

**Proving the machine** (DESIGN §24): with \`ssh_host_key\` and \`ssh_key_signature\` the machine proves it holds
    the SSH host key whose fingerprint the precheck named, by signing this activate's values and the precheck's
    \`proof_challenge\` with it (\`ssh-keygen -Y sign -n slowdns-activate\`; the fields say the exact bytes). The
    answer's \`machine_binding.ssh_key_proven\` says whether it did. A proof that does not prove (another key than
    the fingerprint, another key inside the signature than \`ssh_host_key\`, a signature over other values or an
    earlier precheck's challenge, another namespace, a SHA-1 \`ssh-rsa\` signature, an RSA key under 2,048 bits, a
    DSA, certificate or \`sk-\` key, a signature that does not parse) is 403 \`machine_proof_invalid\`: which check
    failed goes to the event \`install_code.machine_proof_refused\`, not to the answer. Without a proof, where the
    precheck answered \`machine_proof: "required"\` (\`MACHINE_PROOF=required\`, or a fleet code made with
    \`require_machine_proof\`), 403 \`machine_proof_required\`. A repeat of a proven activate must prove again.

The answer's \`observed_ip\` is the address this request came from and \`public_ip_matches_observed\` says
    whether the confirmed \`public_ip\` is that address: information for the operator, never a refusal (NAT is
    legitimate).

Order of checks: the body (400 \`validation_failed\`), the installer version (426 \`installer_outdated\`),
    the precheck token's signature and claims (no database), then the limits, then the code. An activate with
    a bad token still counts, but only per IP: the machine's budget is used only by a token made for that
    machine. The 401 or 403 of a bad token comes after the limits, so a client over its IP limit gets 429.

**A code an operator issued** (\`createInstallCode\`, DESIGN §22): from an address outside its \`allowed_cidrs\`
    activate is 403 \`install_code_address_not_allowed\`, a \`hostname\` outside its \`hostname_pattern\` 403
    \`install_code_hostname_not_allowed\` (both counted per IP, nothing written). A code with \`uses\` > 1 stays
    \`issued\` while a use is free: each activate takes one (exactly one of concurrent activates takes the last),
    a precheck token makes at most one activation (another is 401 \`precheck_token_invalid\`), and with none
    free the answer is 409 \`install_code_exhausted\`. Inside its own \`allowed_cidrs\` it counts in its own
    bucket (60 activations a minute) instead of the per-IP limit; the per-machine limit stays.

**Retry rule for installers.** When the answer to an activate is lost (a timeout, a cut connection, an
    instance stopped after the commit), send exactly the same request again: the same \`precheck_token\` and
    the same body. While the activation it made is unconfirmed, unreleased and its install token unused and
    unexpired, the repeat answers 200 with the same \`activation_id\` and an install token for the same
    single-use token (the same \`jti\`): confirm accepts either copy, once. This holds across instances and
    for repeats sent at the same time. Fields are compared as the service normalises them (the code's case and
    spaces do not matter). Anything else gets the usual answer: another body, another precheck token for the
    same code, a confirmed activation or an expired install token is 409 \`install_code_unavailable\`; after a
    release the code may be \`issued\` again and the request makes a new activation; an expired precheck token
    is 401 \`precheck_token_invalid\`. A repeat counts against the activate limits like any request (they are
    checked before the code is looked up).

**A code issued with approval** (its precheck answered \`approval: "pending"\` and a \`precheck_id\`,
    DESIGN §14): until the person who got the code approves that precheck on the page, activate answers 409
    \`approval_pending\` with \`Retry-After\` (at most 5 seconds) and writes nothing: such an answer counts in
    none of the limits below. Ask again after \`Retry-After\`; faster repeats with the same precheck token get
    429 \`rate_limit_exceeded\` (policy \`${approvalWaitPolicy.name}\`: ${approvalWaitPolicy.quota} answer per
    precheck token per fixed ${approvalWaitPolicy.windowSeconds}-second bucket; its Retry-After is the rest of
    the bucket). Once the person decided, the next activate answers at once: approved, it goes on as below
    (counted as usual); denied, 403 \`approval_denied\` (the code is revoked). Approval binds the code to that
    precheck: the token of any other precheck, even for the same machine id and SSH key, is 403
    \`machine_mismatch\`. After a release that restored the code, its old precheck tokens are 401
    \`precheck_token_invalid\`: precheck again and the person is asked again. Wait no longer than the code's
    \`expires_at\`: then it is 410 \`install_code_expired\`.

${rateLimitDescription('activate')}`,
  request: jsonBody(ActivateRequestSchema),
  responses: {
    200: {
      description: 'The activation and its install token.',
      headers: { ...rateLimitHeaderDocs('activate'), ...noStoreHeader('the install token') },
      content: {
        'application/json': {
          schema: successEnvelope(ActivationSchema),
          example: {
            data: {
              activation_id: 'act_3f9a12b45cd67e89',
              install_token: 'eyJhbGciOiJFZERTQSIsInR5cCI6InNsb3dkbnMtaW5zdGFsbCtqd3QifQ.e30.c2ln',
              install_token_expires_at: '2026-11-22T11:05:00+00:00',
              install_code: 'SDNS-SD-7K3MQ2-XR9T4B-HX3W8N',
              machine_binding: {
                hostname: 'vpn1.example.net',
                public_ip: '203.0.113.7',
                machine_id: '4c4c4544003957108052b4c04f384833',
                ssh_fingerprint: 'SHA256:nThbg6kXUpJWGl7E1IGOCspRomTxdCARLviKw6E5SY8',
                ssh_key_proven: true,
              },
              observed_ip: '203.0.113.7',
              public_ip_matches_observed: true,
            },
            meta: { message: 'Install code activated. Confirm once every service is running.' },
          },
        },
      },
    },
    ...activateErrors,
    // Retry-After comes with one of the 409's codes only (approval_pending), so it is said in words, not as a required header.
    409: {
      ...activateErrors[409]!,
      description: prose`${activateErrors[409]!.description} With \`approval_pending\` the answer carries \`Retry-After\`:
        seconds until this precheck token may ask again (at most 5).`,
    },
    429: rateLimitedResponse('activate'),
  },
});

export function registerActivate(app: Router, deps: RouteDeps): void {
  app.openapi(activate, async (c) => {
    const body = c.req.valid('json');
    const now = deps.clock.now();
    const limits = checksFor(
      'activate',
      { ip: c.get('clientKey'), machine: body.machine_id },
      await checkSources(deps, now),
    );
    const proof =
      body.ssh_host_key === undefined || body.ssh_key_signature === undefined
        ? undefined
        : { sshHostKey: body.ssh_host_key, sshKeySignature: body.ssh_key_signature, signed: await signedValues(c) };
    const outcome = await activateInstallCode(deps.db, {
      request: {
        proof,
        code:
          body.install_code_id === undefined
            ? { installCode: body.install_code! }
            : { installCodeId: body.install_code_id },
        precheckToken: body.precheck_token,
        hostname: body.hostname,
        publicIp: body.public_ip,
        machineId: body.machine_id,
        sshFingerprint: body.ssh_fingerprint,
        requestedRef: body.requested_ref,
        installerVersion: body.installer_version,
        observedIp: c.get('observedIp'),
      },
      now,
      context: changeContext(c, 'installer'),
      limits,
      hashes: deps.keyedHashes,
      keys: deps.keys,
      rules: deps.config,
    });
    const activation = admitCounted(c, outcome);
    const observed = c.get('observedIp');
    const token = await signInstallToken(
      deps.keys,
      { activationId: activation.id, jti: activation.installTokenJti },
      now,
      activation.installTokenExpiresAt,
    );
    return c.json(
      {
        data: {
          activation_id: activation.id,
          install_token: token,
          install_token_expires_at: toIsoOffset(activation.installTokenExpiresAt),
          ...(body.install_code_id === undefined
            ? { install_code: body.install_code! }
            : { install_code_id: body.install_code_id }),
          machine_binding: {
            hostname: activation.hostname,
            public_ip: activation.publicIp,
            machine_id: activation.machineId,
            ssh_fingerprint: activation.sshFingerprint,
            ssh_key_proven: activation.sshKeyProven,
          },
          observed_ip: observed,
          // The observed address is in its one spelling already: only the stored one is read again.
          public_ip_matches_observed: observed !== null && normaliseAddress(activation.publicIp) === observed,
        },
        meta: { message: 'Install code activated. Confirm once every service is running.' },
      },
      200,
    );
  });
}

/** The values a machine proof signs, as the body sent them: before the schema trimmed or lower-cased them. */
async function signedValues(c: Context) {
  const sent = await sentJsonBody(c);
  return { machineId: String(sent.machine_id), hostname: String(sent.hostname), publicIp: String(sent.public_ip) };
}
