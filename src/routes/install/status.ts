import { createRoute } from '@hono/zod-openapi';
import { toIsoOffset } from '../../clock.js';
import { readInstallStatus } from '../../domain/activations/install-status.js';
import { EXPIRED_READABLE_SECONDS, verifyInstallTokenFor } from '../../domain/tokens/install-step-tokens.js';
import { jsonBody } from '../../http/json-body.js';
import type { Router } from '../../http/router.js';
import { errorResponses, successEnvelope } from '../../schemas/envelope.js';
import { headerRef } from '../../schemas/response-headers.js';
import { InstallStatusRequestSchema, InstallStatusSchema } from '../../schemas/install-status.js';
import type { RouteDeps } from '../../deps.js';
import { signReceipt } from '../../domain/activations/receipts.js';
import { prose } from '../../openapi-prose.js';

const messages = {
  activated: 'The activation is waiting for confirm.',
  confirmed: 'The install is confirmed.',
  released: 'The activation was released.',
} as const;

const status = createRoute({
  method: 'post',
  path: '/api/v2/slowdns/install/status',
  operationId: 'getInstallStatus',
  tags: ['install'],
  // No credential header: the install code, the signed tokens and the activation id travel in the body.
  security: [],
  summary: 'Read an install back',
  description: prose`For an installer that was interrupted (a dropped SSH session, a killed process) and runs again: given the
    activation id and its install token, answers where the install stands (\`activated\`, \`confirmed\` or
    \`released\`), the machine it is bound to, the token's expiry, whether a release now would restore the
    install code, and whether a server is registered. A rerun then resumes (\`activated\` with
    \`install_token_expired\` false), stops (\`confirmed\`), or releases and starts again.

The install token is checked as confirm checks it (signature, kind, and that it is the one activate issued
    for this activation: otherwise 401 \`install_token_invalid\`) with two differences, because reading
    changes nothing: a token that confirm consumed still reads its activation (a rerun after confirm learns it
    is \`confirmed\`), and so does an expired one, for ${EXPIRED_READABLE_SECONDS / 86400} days past its
    expiry (\`install_token_expired\` says so). Not rate-limited: the activation id and the signed token are
    the cap.`,
  request: jsonBody(InstallStatusRequestSchema),
  responses: {
    200: {
      description: 'Where the install stands.',
      headers: {
        'Cache-Control': headerRef(
          'Cache-Control',
          'Always `no-store`: the answer describes one install at one moment.',
        ),
      },
      content: {
        'application/json': {
          schema: successEnvelope(InstallStatusSchema),
          example: {
            data: {
              activation_id: 'act_3f9a12b45cd67e89',
              status: 'activated',
              install_code_hint: 'SDNS-SD-…HX3W8N',
              machine_binding: {
                hostname: 'vpn1.example.net',
                public_ip: '203.0.113.7',
                machine_id: '4c4c4544003957108052b4c04f384833',
                ssh_fingerprint: 'SHA256:nThbg6kXUpJWGl7E1IGOCspRomTxdCARLviKw6E5SY8',
                ssh_key_proven: true,
              },
              requested_ref: 'main',
              install_token_expires_at: '2026-11-22T11:05:00+00:00',
              install_token_expired: false,
              release_restores_code: true,
              install_code_restored: null,
              server_registered: false,
              server_id: null,
              created_at: '2026-11-22T10:05:00+00:00',
              confirmed_at: null,
              released_at: null,
              receipt: null,
            },
            meta: { message: messages.activated },
          },
        },
      },
    },
    ...errorResponses(
      'validation_failed',
      'install_token_invalid',
      'activation_not_found',
      'unsupported_media_type',
      'payload_too_large',
    ),
  },
});

const isoOrNull = (date: Date | null) => (date ? toIsoOffset(date) : null);

export function registerInstallStatus(app: Router, deps: RouteDeps): void {
  app.openapi(status, async (c) => {
    const body = c.req.valid('json');
    const now = deps.clock.now();
    const jti = await verifyInstallTokenFor(deps.keys, {
      token: body.install_token,
      activationId: body.activation_id,
      now,
      expired: 'accept',
    });
    const { activation, code, server, tokenExpired, releaseRestoresCode } = await readInstallStatus(
      deps.db,
      body.activation_id,
      jti,
      now,
    );
    const receipt = activation.confirmedAt
      ? await signReceipt(await deps.receiptKeys.signer(), { ...activation, confirmedAt: activation.confirmedAt })
      : null;
    c.header('Cache-Control', 'no-store');
    return c.json(
      {
        data: {
          activation_id: activation.id,
          status: activation.status,
          install_code_hint: code.hint,
          machine_binding: {
            hostname: activation.hostname,
            public_ip: activation.publicIp,
            machine_id: activation.machineId,
            ssh_fingerprint: activation.sshFingerprint,
            ssh_key_proven: activation.sshKeyProven,
          },
          requested_ref: activation.requestedRef,
          install_token_expires_at: toIsoOffset(activation.installTokenExpiresAt),
          install_token_expired: tokenExpired,
          release_restores_code: releaseRestoresCode,
          install_code_restored: activation.status === 'released' ? (activation.codeRestored ?? false) : null,
          server_registered: server !== undefined,
          server_id: server?.id ?? null,
          created_at: toIsoOffset(activation.createdAt),
          confirmed_at: isoOrNull(activation.confirmedAt),
          released_at: isoOrNull(activation.releasedAt),
          receipt,
        },
        meta: { message: messages[activation.status] },
      },
      200,
    );
  });
}
