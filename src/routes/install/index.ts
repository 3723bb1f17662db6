import type { AppDeps } from '../../app.js';
import type { Router } from '../../http/router.js';
import { registerActivate } from './activate.js';
import { registerConfirm } from './confirm.js';
import { registerPrecheck } from './precheck.js';
import { registerRelease } from './release.js';

/** The installer lifecycle: precheck → activate → confirm, or release and retry. */
export function registerInstall(app: Router, deps: AppDeps): void {
  registerPrecheck(app, deps);
  registerActivate(app, deps);
  registerConfirm(app, deps);
  registerRelease(app, deps);
}
