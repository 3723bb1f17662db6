import { createRoute } from '@hono/zod-openapi';
import { BROWSER_SESSION_COOKIE } from '../domain/browser-sessions/sessions.js';
import { listWatchedInstallCodes } from '../domain/install-codes/watched-codes.js';
import { requireBrowserSession } from '../http/browser-session.js';
import type { Router } from '../http/router.js';
import { assertSameOrigin } from '../http/same-origin.js';
import { errorResponses, successEnvelope } from '../schemas/envelope.js';
import { watchedInstallCodeJson, WatchedInstallCodesSchema } from '../schemas/watched-install-code.js';
import type { AppDeps } from '../deps.js';
import { prose } from '../openapi-prose.js';

const codeStatus = createRoute({
  method: 'get',
  path: '/api/v2/slowdns/code/status',
  operationId: 'getInstallCodeStatus',
  tags: ['install-codes'],
  summary: 'What became of the codes this browser issued',
  description: prose`The install codes the \`${BROWSER_SESSION_COOKIE}\` session issued in its lifetime, newest first, each
    with what became of it and, once a machine used it, what a person needs to recognise that machine:
    hostname, public IP, the machine id shortened, the SSH host key fingerprint and when. The page polls it to
    tell the person, live, who is using their code; a code used by a machine they do not know can be cancelled
    with \`POST /api/v2/slowdns/code/cancel\`.

Never the code itself and never a token: only the \`install_code_id\` handle and the hint. Another
    browser's session sees none of these codes. Same-origin checks as issue: another site's request is 403
    \`cross_site_request\`; a missing or expired session is 403 \`browser_session_required\`. Not
    rate-limited: it reads one session's rows.`,
  security: [{ browserSession: [] }],
  responses: {
    200: {
      description: "The session's codes.",
      content: {
        'application/json': {
          schema: successEnvelope(WatchedInstallCodesSchema),
          example: {
            data: {
              items: [
                {
                  install_code_id: 'ic_5b2e9f0c81d4a7e3',
                  install_code_hint: 'SDNS-SD-…HX3W8N',
                  status: 'activated',
                  usable: false,
                  issued_at: '2026-11-22T10:00:00+00:00',
                  expires_at: '2026-11-22T10:15:00+00:00',
                  machine: {
                    hostname: 'vpn1.example.net',
                    public_ip: '203.0.113.7',
                    machine_id_short: '4c4c4544',
                    ssh_fingerprint: 'SHA256:nThbg6kXUpJWGl7E1IGOCspRomTxdCARLviKw6E5SY8',
                  },
                  precheck_ip: '203.0.113.7',
                  prechecked_at: '2026-11-22T10:02:10+00:00',
                  activated_at: '2026-11-22T10:03:40+00:00',
                  confirmed_at: null,
                  released_at: null,
                  revoked_at: null,
                  identity_in_use: false,
                  require_approval: false,
                  approval: 'not_required',
                  prechecks: [],
                },
              ],
            },
            meta: { message: '1 install code issued by this browser.' },
          },
        },
      },
    },
    ...errorResponses('browser_session_required', 'cross_site_request'),
  },
});

export function registerCodeStatus(app: Router, deps: AppDeps): void {
  app.openapi(codeStatus, async (c) => {
    c.header('Cache-Control', 'no-store');
    assertSameOrigin(c, deps.config.publicBaseUrl);
    const now = deps.clock.now();
    const session = await requireBrowserSession(c, deps.db, now);
    const codes = await listWatchedInstallCodes(deps.db, session.tokenHash, now);
    const count = codes.length === 1 ? '1 install code' : `${codes.length} install codes`;
    return c.json(
      { data: { items: codes.map(watchedInstallCodeJson) }, meta: { message: `${count} issued by this browser.` } },
      200,
    );
  });
}
