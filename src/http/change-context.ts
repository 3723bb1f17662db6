import type { Context } from 'hono';
import type { ChangeContext, EventActor } from '../domain/events/event-trail.js';
import type { AppEnv } from './app-env.js';

/** What the domain records with a change this request makes: who asked, the request id, the client's address key (hashed). */
export function changeContext(c: Context<AppEnv>, actor: EventActor): ChangeContext {
  return {
    actor,
    requestId: c.get('requestId'),
    clientKeyHash: c.get('keyedHashes').clientKey(c.get('clientKey')),
    recorded: c.get('recordedEvents'),
  };
}

/** What the domain records with an operator's change: as `changeContext`, plus who (`c.get('operator')`) and why. */
export function operatorChangeContext(
  c: Context<AppEnv>,
  reason?: string | null,
): ChangeContext & { operator: string } {
  const issuer = c.get('operatorIssuer');
  return {
    ...changeContext(c, 'operator'),
    operator: c.get('operator'),
    ...(issuer === undefined ? {} : { operatorIssuer: issuer }),
    ...(reason === undefined ? {} : { reason }),
  };
}
