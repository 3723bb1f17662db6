import { createRoute } from '@hono/zod-openapi';
import { toIsoOffset } from '../../clock.js';
import { createActivation } from '../../domain/activations.js';
import { assertInstallerSupported } from '../../domain/installer-version.js';
import { sha256Hex } from '../../domain/secret-hash.js';
import { signInstallToken, verifyPrecheckToken } from '../../domain/tokens.js';
import { ApiError } from '../../errors.js';
import { checksFor } from '../../domain/rate-limits/limiter.js';
import { rateLimitAddressKey } from '../../http/client-address.js';
import { enforceRateLimits } from '../../http/enforce-rate-limits.js';
import { jsonBody } from '../../http/json-body.js';
import { rateLimitDescription, rateLimitedResponse, rateLimitHeaderDocs } from '../../http/rate-limit-headers.js';
import type { Router } from '../../http/router.js';
import { ActivateRequestSchema, ActivationSchema } from '../../schemas/activation.js';
import { errorResponses, successEnvelope } from '../../schemas/envelope.js';
import type { AppDeps } from '../../app.js';

const activate = createRoute({
  method: 'post',
  path: '/api/v2/slowdns/install/activate',
  operationId: 'activateInstallCode',
  tags: ['install'],
  // No credential header: the install code, the signed tokens and the activation id travel in the body.
  security: [],
  summary: 'Activate an install code',
  description: `Called by the installer only after the operator confirmed the final hostname and public IP. Presents the precheck token with the same install code and machine identity it was made for. In one transaction the code goes from \`issued\` to \`activated\` and an activation is created with a single-use install token valid for \`INSTALL_TOKEN_TTL_SECONDS\` (3600 by default). Of concurrent activations of one code exactly one succeeds; the others get 409 \`install_code_unavailable\`.

A precheck token that is tampered with, expired, of another kind or for another code is 401 \`precheck_token_invalid\`; a different \`machine_id\` or \`ssh_fingerprint\` than the precheck's is 403 \`machine_mismatch\`.

Order of checks: the body (400 \`validation_failed\`), the installer version (426 \`installer_outdated\`), then the limits, then the token and the code: an activate with a bad token still counts. The client IP address is the socket peer, or the \`X-Forwarded-For\` entry \`TRUST_PROXY\` points at; an IPv6 client is counted by its /64 network.

${rateLimitDescription('activate')}`,
  request: jsonBody(ActivateRequestSchema),
  responses: {
    200: {
      description: 'The activation and its install token.',
      headers: rateLimitHeaderDocs('activate'),
      content: {
        'application/json': {
          schema: successEnvelope(ActivationSchema),
          example: {
            data: {
              activation_id: 'act_3f9a12b45cd67e89',
              install_token: 'eyJhbGciOiJFZERTQSIsInR5cCI6InNsb3dkbnMtaW5zdGFsbCtqd3QifQ.e30.c2ln',
              install_token_expires_at: '2026-11-22T11:05:00.000+00:00',
              install_code: 'SDNS-SD-7K3MQ2-XR9T4B-HX3W8N',
              machine_binding: {
                hostname: 'vpn1.example.net',
                public_ip: '203.0.113.7',
                machine_id: '4c4c4544003957108052b4c04f384833',
                ssh_fingerprint: 'SHA256:nThbg6kXUpJWGl7E1IGOCspRomTxdCARLviKw6E5SY8',
              },
            },
            meta: { message: 'Install code activated. Confirm once every service is running.' },
          },
        },
      },
    },
    ...errorResponses('validation_failed', 'precheck_token_invalid', 'machine_mismatch', 'install_code_not_found', 'install_code_unavailable', 'install_code_expired', 'installer_outdated', 'unsupported_media_type', 'payload_too_large'),
    429: rateLimitedResponse('activate'),
  },
});

export function registerActivate(app: Router, deps: AppDeps): void {
  app.openapi(activate, async (c) => {
    const body = c.req.valid('json');
    assertInstallerSupported(body.installer_version, deps.config.minInstallerVersion);
    const now = deps.clock.now();
    const ip = rateLimitAddressKey(c.get('clientAddress'));
    await enforceRateLimits(c, deps.db, now, checksFor('activate', { ip, machine: body.machine_id }));
    const precheck = await verifyPrecheckToken(deps.keys, body.precheck_token, now);
    const codeHash = sha256Hex(body.install_code);
    if (precheck.codeHash !== codeHash) throw new ApiError('precheck_token_invalid', 'This precheck token was made for another install code; run the precheck again.');
    if (precheck.machineId !== body.machine_id || precheck.sshFingerprint !== body.ssh_fingerprint) throw new ApiError('machine_mismatch');

    const activation = await createActivation(
      deps.db,
      {
        codeHash,
        hostname: body.hostname,
        publicIp: body.public_ip,
        machineId: body.machine_id,
        sshFingerprint: body.ssh_fingerprint,
        requestedRef: body.requested_ref,
        installerVersion: body.installer_version,
      },
      now,
      deps.config.installTokenTtlSeconds,
    );
    const token = await signInstallToken(deps.keys, { activationId: activation.id, jti: activation.installTokenJti }, now, activation.installTokenExpiresAt);
    return c.json(
      {
        data: {
          activation_id: activation.id,
          install_token: token,
          install_token_expires_at: toIsoOffset(activation.installTokenExpiresAt),
          install_code: body.install_code,
          machine_binding: { hostname: activation.hostname, public_ip: activation.publicIp, machine_id: activation.machineId, ssh_fingerprint: activation.sshFingerprint },
        },
        meta: { message: 'Install code activated. Confirm once every service is running.' },
      },
      200,
    );
  });
}
