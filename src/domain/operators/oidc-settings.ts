/**
 * What a console operator may do (DESIGN §26): `read` and `write` are §17's scopes; `root` is write plus
 * managing operator tokens and console sessions. In this order: a role includes those before it.
 */
export const CONSOLE_ROLES = ['read', 'write', 'root'] as const;
export type ConsoleRole = (typeof CONSOLE_ROLES)[number];

/** Sign-in with the identity provider, from the OIDC_* settings (src/config-oidc.ts). */
export interface OidcSettings {
  issuer: URL;
  clientId: string;
  clientSecret: string | undefined;
  /** The scopes asked for, space-separated (`openid` among them). */
  scopes: string;
  /** The claim of the ID token that names the person's groups (a string counts as a list of one). */
  rolesClaim: string;
  /** Group → role; the highest role among the person's groups wins, none: no sign-in. */
  roles: Record<string, ConsoleRole>;
  /** How long a session opened by the provider lasts, at most (idle or not). */
  sessionSeconds: number;
  /** IDENTITY_ISSUER_ALLOW_HTTP: the provider may be reached over plain http (labs and tests). */
  allowHttp: boolean;
}

/**
 * The role the ID token's claims give: the highest role mapped from the groups in `rolesClaim`, or
 * undefined when none of them is mapped (or the claim is missing, or neither a string nor a list of them).
 */
export function roleOfClaims(
  claims: Record<string, unknown>,
  settings: Pick<OidcSettings, 'rolesClaim' | 'roles'>,
): ConsoleRole | undefined {
  const value = claims[settings.rolesClaim];
  const groups =
    typeof value === 'string' ? [value] : Array.isArray(value) ? value.filter((g) => typeof g === 'string') : [];
  let best = -1;
  for (const group of groups) {
    const role = Object.hasOwn(settings.roles, group) ? settings.roles[group] : undefined;
    if (role) best = Math.max(best, CONSOLE_ROLES.indexOf(role));
  }
  return best < 0 ? undefined : CONSOLE_ROLES[best];
}
