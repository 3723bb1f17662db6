import type { RouteDeps } from '../../deps.js';
import { adminAuth } from '../../http/admin-auth.js';
import { idempotencyKeys } from '../../http/idempotency-key.js';
import { operatorReads } from '../../http/operator-reads.js';
import type { Router } from '../../http/router.js';
import { registerAdminActivations } from './activations.js';
import { registerAdminEvents } from './events.js';
import { registerAdminInstallCodes } from './install-codes.js';
import { registerAdminFleetCodes } from './fleet-codes.js';
import { registerAdminCodeTrust } from './code-trust.js';
import { registerAdminOperatorTokens } from './operator-tokens.js';
import { registerAdminRateLimitOverrides } from './rate-limit-overrides.js';
import { registerAdminRateLimitUsage } from './rate-limit-usage.js';
import { registerAdminServers } from './servers.js';
import { registerAdminWebhookDeliveries } from './webhook-deliveries.js';
import { registerAdminWebhooks } from './webhooks.js';

/** The operator's API under /api/v2/admin/: lists with filters and cursors, and the operator actions. */
export function registerAdmin(app: Router, deps: RouteDeps): void {
  app.use('/api/v2/admin/*', adminAuth(deps));
  app.use('/api/v2/admin/*', operatorReads(deps.reads));
  app.use('/api/v2/admin/*', idempotencyKeys(deps));
  registerAdminInstallCodes(app, deps);
  registerAdminFleetCodes(app, deps);
  registerAdminCodeTrust(app, deps);
  registerAdminActivations(app, deps);
  registerAdminServers(app, deps);
  registerAdminEvents(app, deps);
  registerAdminRateLimitOverrides(app, deps);
  registerAdminRateLimitUsage(app, deps);
  registerAdminWebhooks(app, deps);
  registerAdminWebhookDeliveries(app, deps);
  registerAdminOperatorTokens(app, deps);
}
