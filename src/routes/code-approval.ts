import { createRoute } from '@hono/zod-openapi';
import { BROWSER_SESSION_COOKIE } from '../domain/browser-sessions/sessions.js';
import type { ApprovalDecision } from '../domain/install-codes/approval.js';
import { decidePrecheck } from '../domain/install-codes/decide-precheck.js';
import { readWatchedInstallCode } from '../domain/install-codes/watched-codes.js';
import { requireBrowserSession } from '../http/browser-session.js';
import { changeContext } from '../http/change-context.js';
import { jsonBody } from '../http/json-body.js';
import type { Router } from '../http/router.js';
import { sameOriginOnly } from '../http/same-origin.js';
import { DecideApprovalRequestSchema } from '../schemas/approval.js';
import { errorResponses, successEnvelope } from '../schemas/envelope.js';
import { headerRef } from '../schemas/response-headers.js';
import {
  EXAMPLE_PRECHECKED_CODE,
  watchedInstallCodeJson,
  WatchedInstallCodeSchema,
} from '../schemas/watched-install-code.js';
import type { AppDeps } from '../deps.js';
import { prose } from '../openapi-prose.js';

/** The watched code of the examples: one machine prechecked it and the person decided. */
function exampleCode(decision: 'approved' | 'denied') {
  return {
    ...EXAMPLE_PRECHECKED_CODE,
    status: decision === 'approved' ? 'prechecked' : 'revoked',
    usable: decision === 'approved',
    revoked_at: decision === 'denied' ? EXAMPLE_PRECHECKED_CODE.revoked_at : null,
    require_approval: true,
    approval: decision,
    prechecks: [
      {
        precheck_id: 'pc_9e1f0a7b3c5d2e48',
        precheck_ip: EXAMPLE_PRECHECKED_CODE.precheck_ip,
        machine_id_short: EXAMPLE_PRECHECKED_CODE.machine.machine_id_short,
        ssh_fingerprint: EXAMPLE_PRECHECKED_CODE.machine.ssh_fingerprint,
        installer_version: '2026.11.20.1',
        prechecked_at: EXAMPLE_PRECHECKED_CODE.prechecked_at,
        approval: decision,
      },
    ],
  } as const;
}

const verbs = {
  approve: {
    path: '/api/v2/slowdns/code/approve',
    operationId: 'approveInstallCodePrecheck',
    summary: 'Approve the machine of a precheck',
    effect: prose`Approval binds the code to that precheck: only an activate presenting **that precheck's token** proceeds
      (the installer waiting on 409 \`approval_pending\` gets 200 at its next try); a token of any other
      precheck, even one claiming the same machine id and SSH key, is 403 \`machine_mismatch\` (both can be
      read from outside). Recorded as \`install_code.approved\`. A release that restores the code ends the
      approval: the next precheck is asked about again.`,
    done: 'Approved: this machine can now activate the code.',
  },
  deny: {
    path: '/api/v2/slowdns/code/deny',
    operationId: 'denyInstallCodePrecheck',
    summary: 'Deny the machine of a precheck',
    effect: prose`Denial revokes the code (\`status: "revoked"\`, \`approval: "denied"\`): precheck and activate of it
      then answer 403 \`approval_denied\`, to every machine. Recorded as \`install_code.denied\` (\`reason:
      "denied"\`). The page asks before it sends this: "Yes, deny this machine" or "Keep waiting".`,
    done: 'Denied: the code is revoked and no machine can use it.',
  },
} as const satisfies Record<
  ApprovalDecision,
  { path: string; operationId: string; summary: string; effect: string; done: string }
>;

function decisionRoute(decision: ApprovalDecision) {
  const verb = verbs[decision];
  return createRoute({
    method: 'post',
    path: verb.path,
    operationId: verb.operationId,
    tags: ['install-codes'],
    summary: verb.summary,
    description: prose`The person decides on a machine that prechecked a code issued with approval (DESIGN §14): the browser
      whose \`${BROWSER_SESSION_COOKIE}\` session issued the code names it by \`install_code_id\` and the
      precheck by \`precheck_id\`, as \`GET /api/v2/slowdns/code/status\` lists them in \`prechecks\`.

${verb.effect}

One decision per code: repeating the same decision on the same precheck answers 200 and changes nothing;
      any other decision afterwards (the opposite one, or one on another precheck) is 409
      \`approval_decided\`. An approve, a deny and a cancel sent at the same moment are made one after the
      other: exactly one decision is taken. A code that can no longer be used before a decision is refused
      with its own error and left as it is: expired 410 \`install_code_expired\`, cancelled 410
      \`install_code_revoked\`.

Same-origin only, checked before the body is read: another site's request is 403 \`cross_site_request\`;
      no valid session is 403 \`browser_session_required\`. Another browser's code, like an unknown id, is 404
      \`install_code_not_found\`; a \`precheck_id\` that is not a precheck of this code is 404
      \`precheck_not_found\`. The answer is the code as \`GET /api/v2/slowdns/code/status\` gives it.`,
    security: [{ browserSession: [] }],
    request: jsonBody(DecideApprovalRequestSchema),
    responses: {
      200: {
        description: 'The code after the decision.',
        headers: { 'Cache-Control': headerRef('Cache-Control', 'Always `no-store`.') },
        content: {
          'application/json': {
            schema: successEnvelope(WatchedInstallCodeSchema),
            example: {
              data: exampleCode(decision === 'approve' ? 'approved' : 'denied'),
              meta: { message: verb.done },
            },
          },
        },
      },
      ...errorResponses(
        'validation_failed',
        'browser_session_required',
        'cross_site_request',
        'install_code_not_found',
        'precheck_not_found',
        'approval_decided',
        'install_code_expired',
        'install_code_revoked',
        'unsupported_media_type',
        'payload_too_large',
      ),
    },
  });
}

export function registerCodeApproval(app: Router, deps: AppDeps): void {
  for (const decision of ['approve', 'deny'] as const) {
    const route = decisionRoute(decision);
    // Before the body is validated: a cross-site form post gets 403, not 415.
    app.use(route.path, sameOriginOnly(deps.config.publicBaseUrl));
    app.openapi(route, async (c) => {
      c.header('Cache-Control', 'no-store');
      const now = deps.clock.now();
      const session = await requireBrowserSession(c, deps.db, now);
      const { install_code_id, precheck_id } = c.req.valid('json');
      const { changed } = await decidePrecheck(deps.db, {
        input: {
          decider: { browserSessionHash: session.tokenHash },
          installCodeId: install_code_id,
          precheckId: precheck_id,
          decision,
        },
        now,
        context: changeContext(c, 'browser'),
      });
      const code = await readWatchedInstallCode(deps.db, session.tokenHash, install_code_id, now);
      return c.json(
        {
          data: watchedInstallCodeJson(code),
          meta: { message: changed ? verbs[decision].done : 'Already decided so: nothing changed.' },
        },
        200,
      );
    });
  }
}
