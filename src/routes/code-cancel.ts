import { createRoute } from '@hono/zod-openapi';
import { BROWSER_SESSION_COOKIE } from '../domain/browser-sessions/sessions.js';
import { cancelWatchedInstallCode, type CancelOutcome } from '../domain/install-codes/watched-codes.js';
import { requireBrowserSession } from '../http/browser-session.js';
import { changeContext } from '../http/change-context.js';
import { jsonBody } from '../http/json-body.js';
import type { Router } from '../http/router.js';
import { sameOriginOnly } from '../http/same-origin.js';
import { errorResponses, successEnvelope } from '../schemas/envelope.js';
import { headerRef } from '../schemas/response-headers.js';
import {
  CancelInstallCodeRequestSchema,
  EXAMPLE_PRECHECKED_CODE,
  watchedInstallCodeJson,
  WatchedInstallCodeSchema,
} from '../schemas/watched-install-code.js';
import type { AppDeps } from '../deps.js';
import { prose } from '../openapi-prose.js';

const messages: Record<CancelOutcome['cancelled'], string> = {
  code: 'Install code cancelled: no machine can use it.',
  install: 'Install code cancelled: the install in progress was released and the code revoked.',
  nothing: 'Nothing to cancel: the code is already out of play.',
};

const cancel = createRoute({
  method: 'post',
  path: '/api/v2/slowdns/code/cancel',
  operationId: 'cancelInstallCode',
  tags: ['install-codes'],
  summary: 'Cancel a code this browser issued',
  description: prose`"Not you?": the browser whose \`${BROWSER_SESSION_COOKIE}\` session issued a code stops it, by its
    \`install_code_id\`.

- An \`issued\` code (prechecked or not, restored after a failed install or not) is revoked: precheck and
    activate then answer 410 \`install_code_revoked\`, and a precheck token already handed out is worth
    nothing.
- An \`activated\` code: the activation is released **without** restoring the code, which is revoked with
    it (a server registered for it is revoked too, as release does). The installer's confirm then answers 409
    \`activation_released\`.
- A confirmed install cannot be undone here: 409 \`activation_confirmed\` (an operator can revoke the server).
- A code already revoked, expired or released for good is left as it is.

Idempotent: a repeat answers 200 with the code as it is. The answer is the code's status, as \`GET
    /api/v2/slowdns/code/status\` gives it. Each change is recorded as events with the actor \`browser\`.

Same-origin only, checked before the body is read: another site's request is 403 \`cross_site_request\`,
    whatever its content type. Another browser's code, like an unknown id, is 404 \`install_code_not_found\`.`,
  security: [{ browserSession: [] }],
  request: jsonBody(CancelInstallCodeRequestSchema),
  responses: {
    200: {
      description: 'The code after the cancel.',
      headers: { 'Cache-Control': headerRef('Cache-Control', 'Always `no-store`.') },
      content: {
        'application/json': {
          schema: successEnvelope(WatchedInstallCodeSchema),
          example: {
            data: EXAMPLE_PRECHECKED_CODE,
            meta: { message: messages.code },
          },
        },
      },
    },
    ...errorResponses(
      'validation_failed',
      'browser_session_required',
      'cross_site_request',
      'install_code_not_found',
      'activation_confirmed',
      'unsupported_media_type',
      'payload_too_large',
    ),
  },
});

export function registerCodeCancel(app: Router, deps: AppDeps): void {
  // Before the body is validated: a cross-site form post gets 403, not 415.
  app.use(cancel.path, sameOriginOnly(deps.config.publicBaseUrl));
  app.openapi(cancel, async (c) => {
    c.header('Cache-Control', 'no-store');
    const now = deps.clock.now();
    const session = await requireBrowserSession(c, deps.db, now);
    const { install_code_id } = c.req.valid('json');
    const { code, cancelled } = await cancelWatchedInstallCode(deps.db, {
      browserSessionHash: session.tokenHash,
      installCodeId: install_code_id,
      now,
      context: changeContext(c, 'browser'),
    });
    return c.json({ data: watchedInstallCodeJson(code), meta: { message: messages[cancelled] } }, 200);
  });
}
