import type { ErrorCode } from '../../errors.js';
import { errorResponses } from '../../schemas/envelope.js';

/** What every admin operation shares: its tag and the operator token. */
export const adminOperation = { tags: ['admin'], security: [{ adminToken: [] }] };

/** The error responses of an admin route: its own codes plus the token's and the bad input's. */
export function adminErrorResponses(...codes: ErrorCode[]) {
  return errorResponses('validation_failed', 'admin_token_invalid', 'admin_api_disabled', ...codes);
}

export const ADMIN_AUTH_SENTENCE =
  'Requires `Authorization: Bearer <ADMIN_TOKEN>`: 401 `admin_token_invalid` without it or with another token, 403 `admin_api_disabled` while the service has no `ADMIN_TOKEN` set. The token is checked before anything else of the request.';
