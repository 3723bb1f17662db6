import { isIP } from 'node:net';
import { z } from '@hono/zod-openapi';
import ipaddr from 'ipaddr.js';
import { CONSOLE_ROLES, type ConsoleRole, type OidcSettings } from './domain/operators/oidc-settings.js';
import { ConfigError } from './config-error.js';

const flag = z.enum(['true', 'false'], { error: 'must be true or false' });

/** The settings of DESIGN §26 (and §25's two switches for issuers), read with the others by `loadConfig`. */
export const OIDC_ENV = {
  OIDC_ISSUER: z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL, the issuer exactly as the provider names it' })
    .optional(),
  OIDC_CLIENT_ID: z.string().min(1).max(512).optional(),
  OIDC_CLIENT_SECRET: z.string().min(1).max(2048).optional(),
  OIDC_SCOPES: z
    .string()
    .regex(/^[\x21-\x7e]+( [\x21-\x7e]+)*$/, 'must be scopes separated by single spaces')
    .refine((s) => s.split(' ').includes('openid'), 'must include openid')
    .default('openid profile email'),
  OIDC_ROLES_CLAIM: z
    .string()
    .regex(/^[A-Za-z0-9_:.\-/]{1,200}$/, 'must be the name of a claim of the ID token, such as groups')
    .default('groups'),
  OIDC_ROLES: z.string().optional(),
  OIDC_SESSION_HOURS: z.coerce.number().positive().max(24).default(1),
  IDENTITY_ISSUER_ALLOW_HTTP: flag.default('false'),
  IDENTITY_ISSUER_ALLOW_PRIVATE: flag.default('false'),
  CONSOLE_PUBLIC_URL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
  CONSOLE_TOKEN_SIGN_IN: flag.default('true'),
};

const OidcEnvSchema = z.object(OIDC_ENV);
type OidcEnv = z.infer<typeof OidcEnvSchema>;

/** `OIDC_ROLES`: a JSON object of group → `read` | `write` | `root`, at least one. */
function parseRoles(text: string | undefined): Record<string, ConsoleRole> {
  if (text === undefined)
    throw new ConfigError(
      'invalid OIDC_ROLES: required with OIDC_ISSUER, e.g. {"slowdns-admins":"root","sre":"write"}',
    );
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ConfigError('invalid OIDC_ROLES: must be JSON, e.g. {"slowdns-admins":"root","sre":"write"}');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed) || Object.keys(parsed).length === 0)
    throw new ConfigError('invalid OIDC_ROLES: must be a JSON object naming at least one group');
  for (const [group, role] of Object.entries(parsed))
    if (!CONSOLE_ROLES.includes(role as ConsoleRole))
      throw new ConfigError(`invalid OIDC_ROLES: the role of ${JSON.stringify(group)} must be read, write or root`);
  return parsed as Record<string, ConsoleRole>;
}

/** A host that is a loopback name or a literal address other than public unicast. */
function isPrivateHost(url: URL): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  return isIP(host) !== 0 && ipaddr.process(host).range() !== 'unicast';
}

/** The issuer as §26 allows it: https, and a public host, unless the two switches open them (labs and tests). */
function checkIssuer(text: string, e: OidcEnv): URL {
  const issuer = new URL(text);
  if (issuer.protocol === 'http:' && e.IDENTITY_ISSUER_ALLOW_HTTP !== 'true')
    throw new ConfigError(
      'invalid OIDC_ISSUER: must be https; set IDENTITY_ISSUER_ALLOW_HTTP=true to allow http (labs and tests)',
    );
  if (isPrivateHost(issuer) && e.IDENTITY_ISSUER_ALLOW_PRIVATE !== 'true')
    throw new ConfigError(
      'invalid OIDC_ISSUER: its host is a private or loopback address; set IDENTITY_ISSUER_ALLOW_PRIVATE=true to allow it',
    );
  if (issuer.search || issuer.hash || issuer.username || issuer.password)
    throw new ConfigError('invalid OIDC_ISSUER: must have no query, fragment or credentials');
  return issuer;
}

/** Sign-in with the identity provider, or undefined when OIDC_ISSUER is unset (no other OIDC_ setting allowed then). */
export function oidcSettings(e: OidcEnv): OidcSettings | undefined {
  if (e.OIDC_ISSUER === undefined) {
    for (const name of ['OIDC_CLIENT_ID', 'OIDC_CLIENT_SECRET', 'OIDC_ROLES'] as const)
      if (e[name] !== undefined) throw new ConfigError(`invalid ${name}: set OIDC_ISSUER too, or unset ${name}`);
    return undefined;
  }
  const issuer = checkIssuer(e.OIDC_ISSUER, e);
  if (e.OIDC_CLIENT_ID === undefined)
    throw new ConfigError(
      'invalid OIDC_CLIENT_ID: required with OIDC_ISSUER (the client id the provider gave this service)',
    );
  return {
    issuer,
    clientId: e.OIDC_CLIENT_ID,
    clientSecret: e.OIDC_CLIENT_SECRET,
    scopes: e.OIDC_SCOPES,
    rolesClaim: e.OIDC_ROLES_CLAIM,
    roles: parseRoles(e.OIDC_ROLES),
    sessionSeconds: Math.round(e.OIDC_SESSION_HOURS * 3600),
    allowHttp: e.IDENTITY_ISSUER_ALLOW_HTTP === 'true',
  };
}

/** CONSOLE_PUBLIC_URL: an origin (no path); by default PUBLIC_BASE_URL's, or the console listener's own. */
export function consolePublicUrl(
  text: string | undefined,
  publicBaseUrl: URL,
  console: { port: number; host: string } | undefined,
): URL {
  if (text === undefined)
    return console === undefined ? new URL(publicBaseUrl.origin) : new URL(`http://${console.host}:${console.port}`);
  const url = new URL(text);
  if (url.pathname !== '/' || url.search || url.hash || url.username || url.password)
    throw new ConfigError(
      'invalid CONSOLE_PUBLIC_URL: must be an origin only, such as https://console.example.net (the console is at /admin under it)',
    );
  return url;
}
