import type { RouteDeps } from '../../deps.js';
import type { Router } from '../../http/router.js';
import { registerCheckin } from './checkin.js';
import { registerRegister } from './register.js';
import { registerRevoke } from './revoke.js';
import { registerStatus } from './status.js';

/** Version-less routes of the installer and the server agents: register, checkin, revoke, status. */
export function registerLegacy(app: Router, deps: RouteDeps): void {
  registerRegister(app, deps);
  registerCheckin(app, deps);
  registerRevoke(app, deps);
  registerStatus(app, deps);
}
