import { timingSafeEqual } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { RouteDeps } from '../deps.js';
import {
  findConsoleSession,
  openConsoleSession,
  type ConsoleCredential,
  type ConsoleSession,
} from '../domain/operators/console-sessions.js';
import { operatorOfToken, type OperatorTokenScope } from '../domain/operators/operator-tokens.js';
import { sha256Hex } from '../domain/tokens/secret-hash.js';
import type { KeyedHashes } from '../domain/tokens/keyed-hashes.js';
import { ROOT_OPERATOR } from './admin-auth.js';
import { isAdminToken } from './credentials.js';
import type { AppEnv } from './app-env.js';
import { assertSameOrigin } from './same-origin.js';

/**
 * The security of the console's cookies (the session's and the sign-in flow's), decided by CONSOLE_PUBLIC_URL
 * (DESIGN §26), the origin browsers reach the console at, which may differ from PUBLIC_BASE_URL's: on https,
 * the `__Host-` name (Secure, Path=/, no Domain); on http, the plain name and no Secure.
 */
export function consoleCookie(consoleUrl: URL, name: string): { name: string; secure: boolean } {
  const secure = consoleUrl.protocol === 'https:';
  return { name: secure ? `__Host-${name}` : name, secure };
}

function sessionCookie(consoleUrl: URL): { name: string; secure: boolean } {
  return consoleCookie(consoleUrl, 'slowdns_console');
}

/** Who a token presented at sign-in names: ADMIN_TOKEN (`root`, write scope) or an active named operator token. */
export async function operatorSigningIn(
  deps: Pick<RouteDeps, 'config' | 'db' | 'clock' | 'keyedHashes'>,
  presented: string,
): Promise<{ operator: string; scope: OperatorTokenScope; credential: ConsoleCredential } | undefined> {
  const adminToken = deps.config.adminToken;
  if (!adminToken || presented.length > 512) return undefined;
  if (isAdminToken(presented, adminToken))
    return {
      operator: ROOT_OPERATOR,
      scope: 'write',
      credential: { rootTokenHash: deps.keyedHashes.rootToken(adminToken) },
    };
  const token = await operatorOfToken(deps.db, presented, deps.clock.now());
  return token ? { operator: token.name, scope: token.scope, credential: { operatorTokenId: token.id } } : undefined;
}

/** Opens the session and sets its cookie: HttpOnly, SameSite=Strict, Path=/, Secure when the console is on https. */
export async function startConsoleSession(
  c: Context<AppEnv>,
  deps: Pick<RouteDeps, 'config' | 'db' | 'clock'>,
  who: Parameters<typeof openConsoleSession>[1],
): Promise<void> {
  const { cookieValue, maxSeconds } = await openConsoleSession(deps.db, who, deps.clock.now());
  const { name, secure } = sessionCookie(deps.config.consolePublicUrl);
  setCookie(c, name, cookieValue, {
    httpOnly: true,
    sameSite: 'Strict',
    path: '/',
    secure,
    maxAge: maxSeconds,
  });
}

export function clearConsoleCookie(c: Context<AppEnv>, consoleUrl: URL): void {
  const { name, secure } = sessionCookie(consoleUrl);
  deleteCookie(c, name, { path: '/', secure });
}

/** Whether the request carries a console cookie at all (to tell "session ended" from "never signed in"). */
export function hasConsoleCookie(c: Context<AppEnv>, consoleUrl: URL): boolean {
  return getCookie(c, sessionCookie(consoleUrl).name) !== undefined;
}

/**
 * Reads the console session of the request, if it is live, and makes its operator the one who acts
 * (`c.get('operator')`, `c.get('operatorScope')`: what `operatorChangeContext` records), as admin-auth does
 * for a bearer token.
 */
export function consoleSession(
  deps: Pick<RouteDeps, 'config' | 'db' | 'clock' | 'keyedHashes'>,
): MiddlewareHandler<AppEnv> {
  const rootTokenHash = currentRootTokenHash(deps.config.adminToken, deps.keyedHashes);
  const cookieName = sessionCookie(deps.config.consolePublicUrl).name;
  return async (c, next) => {
    const session = await findConsoleSession(deps.db, getCookie(c, cookieName), deps.clock.now(), rootTokenHash);
    if (session) {
      c.set('consoleSession', session);
      c.set('operator', session.operator);
      c.set('operatorScope', session.scope);
      if (session.issuer !== undefined) c.set('operatorIssuer', session.issuer);
    }
    await next();
  };
}

/** The hash a root session keeps of the ADMIN_TOKEN set now (none set: undefined), made once per app. */
function currentRootTokenHash(adminToken: string | undefined, hashes: KeyedHashes): string | undefined {
  return adminToken ? hashes.rootToken(adminToken) : undefined;
}

/** Why a console form was refused. */
export type FormRefusal = 'cross_site' | 'form_token';

/**
 * A console form's POST must come from a console page of this very session: same origin (Origin,
 * Sec-Fetch-Site), and the form token of this session (another session's, or none, is refused).
 */
export function formRefusal(
  c: Context<AppEnv>,
  publicBaseUrl: URL,
  session: ConsoleSession,
  formToken: unknown,
): FormRefusal | undefined {
  try {
    assertSameOrigin(c, publicBaseUrl);
  } catch {
    return 'cross_site';
  }
  if (typeof formToken !== 'string') return 'form_token';
  const given = Buffer.from(sha256Hex(formToken));
  const expected = Buffer.from(sha256Hex(session.formToken));
  return timingSafeEqual(given, expected) ? undefined : 'form_token';
}
