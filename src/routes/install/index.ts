import type { RouteDeps } from '../../deps.js';
import type { Router } from '../../http/router.js';
import { registerActivate } from './activate.js';
import { registerConfirm } from './confirm.js';
import { registerPrecheck } from './precheck.js';
import { registerRelease } from './release.js';
import { registerInstallStatus } from './status.js';

/** The installer lifecycle: precheck → activate → confirm, or release and retry; status reads an install back. */
export function registerInstall(app: Router, deps: RouteDeps): void {
  registerPrecheck(app, deps);
  registerActivate(app, deps);
  registerConfirm(app, deps);
  registerRelease(app, deps);
  registerInstallStatus(app, deps);
}
