import type { AppDeps } from '../../app.js';
import type { Router } from '../../http/router.js';
import { registerCheckin } from './checkin.js';
import { registerLegacySecuritySchemes } from './credentials.js';
import { registerRegister } from './register.js';
import { registerRevoke } from './revoke.js';
import { registerStatus } from './status.js';

/** Version-less routes of the installer and the server agents: register, checkin, revoke, status. */
export function registerLegacy(app: Router, deps: AppDeps): void {
  registerLegacySecuritySchemes(app);
  registerRegister(app, deps);
  registerCheckin(app, deps);
  registerRevoke(app, deps);
  registerStatus(app, deps);
}
