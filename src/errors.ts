/**
 * The one map of error code → HTTP status. Thrown errors, the documented responses of every route
 * (src/schemas/envelope.ts) are derived from it, and the table in docs/integrators.md is checked
 * against it (test/docs/reference-tables.test.ts), so they cannot drift.
 */
export const errorCatalog = {
  validation_failed: { status: 400, message: 'The request is not valid: fields name what is wrong.' },
  malformed_request: { status: 400, message: 'The request is not well-formed HTTP.' },
  browser_session_required: { status: 403, message: 'Open the SlowDNS page first, then request an install code.' },
  cross_site_request: { status: 403, message: 'Install codes can only be requested from the SlowDNS page itself.' },
  machine_mismatch: { status: 403, message: 'This machine is not the one the precheck was made for.' },
  machine_proof_invalid: {
    status: 403,
    message:
      'The SSH host-key signature does not prove this machine: sign this activate\'s exact statement with the host key whose fingerprint the precheck named (docs/installers.md, "Proving the machine").',
  },
  machine_proof_required: {
    status: 403,
    message:
      'This service or install code admits only machines that prove their SSH host key: send ssh_host_key and ssh_key_signature (OpenSSH 8.1 or later, run as root).',
  },
  identity_token_required: {
    status: 403,
    message:
      'This install code has no secret: it enrolls machines that present an identity token from its issuer (install_code_id with identity_token).',
  },
  identity_token_invalid: {
    status: 401,
    message:
      'The identity token does not verify for this install code: check its issuer, audience, lifetime and the platform\'s token file (docs/installers.md, "Codeless enrollment").',
  },
  identity_not_allowed: {
    status: 403,
    message:
      "The identity token verifies, but the install code's trust rules do not admit it; its operator can explain which.",
  },
  identity_token_replayed: {
    status: 401,
    message: 'This identity token was already used by another machine: fetch a fresh token from the platform.',
  },
  identity_issuer_unavailable: {
    status: 503,
    message: "The identity token's issuer cannot be reached for its keys right now; retry after Retry-After.",
  },
  install_code_not_found: { status: 404, message: 'No install code matches what was entered.' },
  activation_not_found: { status: 404, message: 'No activation has this id.' },
  server_not_found: { status: 404, message: 'No server has this id.' },
  operator_token_not_found: { status: 404, message: 'No operator token has this id.' },
  rate_limit_override_not_found: { status: 404, message: 'No rate-limit override has this id.' },
  webhook_url_not_allowed: {
    status: 400,
    message: 'This URL cannot be a webhook target: see docs/operators.md, "Webhooks".',
  },
  webhook_endpoint_not_found: { status: 404, message: 'No webhook endpoint has this id.' },
  webhook_delivery_not_found: { status: 404, message: 'No webhook delivery has this id.' },
  key_encryption_required: {
    status: 409,
    message:
      'This service keeps no secret in clear (REQUIRE_KEY_ENCRYPTION) and has no KEY_ENCRYPTION_KEY to seal one: set KEY_ENCRYPTION_KEY (npx slowdns keys generate prints one) and restart.',
  },
  webhook_endpoint_unsigned: {
    status: 409,
    message:
      'A chat webhook endpoint has no signing secret: its URL is its credential (make a new endpoint to change it).',
  },
  webhook_endpoint_limit_reached: {
    status: 409,
    message: 'The service already has as many webhook endpoints as it allows (50); remove one first.',
  },
  install_code_expired: {
    status: 410,
    message: 'This install code has expired. Request a new one on the SlowDNS page.',
  },
  install_code_revoked: {
    status: 410,
    message: 'This install code was revoked. Request a new one on the SlowDNS page.',
  },
  install_code_unavailable: { status: 409, message: 'This install code is already in use by an activation.' },
  install_code_exhausted: {
    status: 409,
    message:
      'Every use of this install code is spent or held by an install in progress; ask its operator for another code, or wait for an unfinished install to give its use back.',
  },
  install_code_address_not_allowed: {
    status: 403,
    message: 'This install code cannot be used from this address: its operator bound it to other networks.',
  },
  install_code_hostname_not_allowed: {
    status: 403,
    message: 'This install code cannot enroll this host name: its operator bound it to a host name pattern.',
  },
  machine_duplicate: {
    status: 409,
    message:
      'This machine_id is already in use by another installed server (a cloned image?). Give this machine its own identity (rm -f /etc/machine-id && systemd-machine-id-setup; rm -f /etc/ssh/ssh_host_* && ssh-keygen -A) and run the installer again.',
  },
  approval_pending: {
    status: 409,
    message:
      'This install code waits for approval of this machine: by the person who got the code, on the SlowDNS page, or for a fleet code by an operator, in the console; retry after Retry-After seconds.',
  },
  approval_decided: {
    status: 409,
    message: 'The person already decided on this install code: the other decision can no longer be made.',
  },
  approval_denied: {
    status: 403,
    message:
      'The owner of this install code denied this machine on the SlowDNS page. Request a new code if that was a mistake.',
  },
  approval_not_operators: {
    status: 403,
    message:
      'This install code was issued to a person on the SlowDNS page: only that person approves its machine. An operator may deny the machine or revoke the code.',
  },
  precheck_not_found: { status: 404, message: 'This install code has no precheck with this id.' },
  install_token_used: { status: 409, message: 'This install token has already been used.' },
  activation_released: { status: 409, message: 'This activation was released; start again with the install code.' },
  activation_confirmed: { status: 409, message: 'This activation is already confirmed.' },
  release_not_allowed: {
    status: 403,
    message:
      'Only the installer can release this activation: send its install_token, or release from the address the install came from.',
  },
  server_already_registered: { status: 409, message: 'A server is already registered for this activation.' },
  precheck_token_invalid: { status: 401, message: 'The precheck token is invalid or expired; run the precheck again.' },
  install_token_invalid: { status: 401, message: 'The install token is invalid or expired.' },
  agent_token_invalid: { status: 401, message: 'The agent token is missing or invalid.' },
  admin_token_invalid: { status: 401, message: 'The operator token is missing or invalid.' },
  admin_scope_insufficient: { status: 403, message: "This operator token's scope does not allow this action." },
  admin_api_disabled: { status: 403, message: 'The admin API is disabled: the service has no ADMIN_TOKEN set.' },
  idempotency_key_mismatch: {
    status: 422,
    message:
      'This Idempotency-Key was used for another request (another path, query or body): send a new key with a new request.',
  },
  idempotency_key_in_flight: {
    status: 409,
    message: 'A request with this Idempotency-Key is still being answered; retry after Retry-After seconds.',
  },
  installer_outdated: { status: 426, message: 'This installer is too old; download the current installer.' },
  rate_limit_exceeded: { status: 429, message: 'Too many requests; wait before retrying.' },
  not_found: { status: 404, message: 'No such route.' },
  method_not_allowed: { status: 405, message: 'This route does not accept that method.' },
  request_timeout: { status: 408, message: 'The request did not arrive in time; send it again, whole.' },
  payload_too_large: { status: 413, message: 'The request body is too large.' },
  unsupported_media_type: { status: 415, message: 'Send the request body as application/json.' },
  request_headers_too_large: { status: 431, message: 'The request headers are too large.' },
  internal_error: { status: 500, message: 'Something went wrong on our side. Try again later.' },
  service_unavailable: { status: 503, message: 'The service cannot reach its database right now. Try again shortly.' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof errorCatalog;
export type ErrorStatus = (typeof errorCatalog)[ErrorCode]['status'];

export const errorCodes = Object.keys(errorCatalog) as [ErrorCode, ...ErrorCode[]];

/** The one error type of the service: a contract code, a safe message, optional response headers. */
export class ApiError extends Error {
  readonly status: ErrorStatus;
  constructor(
    readonly code: ErrorCode,
    message: string = errorCatalog[code].message,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = errorCatalog[code].status;
  }
}
