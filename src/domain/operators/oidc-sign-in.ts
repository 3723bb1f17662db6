import { timingSafeEqual } from 'node:crypto';
import * as oidc from 'openid-client';
import type { Database } from '../../db/database.js';
import { sha256Hex } from '../tokens/secret-hash.js';
import type { OidcIdentity } from './console-sessions.js';
import { openOidcFlow, takeOidcFlow } from './oidc-flows.js';
import { roleOfClaims, type ConsoleRole, type OidcSettings } from './oidc-settings.js';

/** The provider gets this long per request (discovery, keys, the token endpoint) before the sign-in is a 503. */
const PROVIDER_TIMEOUT_SECONDS = 10;

/**
 * Why a sign-in was refused, each a page with its status and no session (DESIGN §26): no flow for the
 * callback (none started, used already, or older than 10 minutes), a `state` that is not the flow's, the
 * provider's own refusal, a code the token endpoint refused (replayed, expired), an ID token that failed
 * verification (signature, issuer, audience, expiry, nonce), a person in no mapped group, or the provider
 * that could not be reached.
 */
export type OidcRefusalReason =
  | 'no_flow'
  | 'state'
  | 'provider_refused'
  | 'code'
  | 'id_token'
  | 'no_role'
  | 'unavailable';

export class OidcSignInRefused extends Error {
  constructor(
    readonly reason: OidcRefusalReason,
    /** What went wrong in the library's words, for the log only (never a token). */
    readonly detail?: string,
  ) {
    super(`sign-in refused: ${reason}`);
  }
}

/**
 * The service as an OpenID relying party: discovery at first use (never at start; a failed one is tried
 * again at the next sign-in), authorization code with PKCE (S256), `state` and `nonce`, the ID token's
 * signature checked against the provider's JWKS (non-repudiation checks on), then `iss`, `aud`, `exp` and
 * `nonce` by openid-client. The ID token's times are checked against this machine's clock.
 */
export class OidcRelyingParty {
  private configuration: Promise<oidc.Configuration> | undefined;
  /** The provider's metadata once a discovery has answered (for the console's CSP, which never waits for one). */
  private metadata: oidc.ServerMetadata | undefined;

  constructor(
    private readonly settings: OidcSettings,
    /** `<CONSOLE_PUBLIC_URL>/admin/sign-in/callback`. */
    readonly redirectUri: URL,
  ) {}

  private discover(): Promise<oidc.Configuration> {
    if (!this.configuration) {
      const execute = [oidc.enableNonRepudiationChecks];
      if (this.settings.allowHttp) execute.push(oidc.allowInsecureRequests);
      this.configuration = oidc
        .discovery(
          this.settings.issuer,
          this.settings.clientId,
          this.settings.clientSecret === undefined ? undefined : { client_secret: this.settings.clientSecret },
          this.settings.clientSecret === undefined ? oidc.None() : undefined,
          { execute, timeout: PROVIDER_TIMEOUT_SECONDS },
        )
        .then((configuration) => {
          this.metadata = configuration.serverMetadata();
          return configuration;
        })
        .catch((error: unknown) => {
          this.configuration = undefined;
          throw new OidcSignInRefused('unavailable', describe(error));
        });
    }
    return this.configuration;
  }

  /** Starts a sign-in: the flow kept in the database, its cookie value, and where to send the browser. */
  async start(db: Database, returnTo: string, now: Date): Promise<{ cookieValue: string; authorizationUrl: URL }> {
    const configuration = await this.discover();
    const codeVerifier = oidc.randomPKCECodeVerifier();
    const flow = { state: oidc.randomState(), nonce: oidc.randomNonce(), codeVerifier, returnTo };
    const authorizationUrl = oidc.buildAuthorizationUrl(configuration, {
      redirect_uri: this.redirectUri.href,
      scope: this.settings.scopes,
      code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
      state: flow.state,
      nonce: flow.nonce,
    });
    return { cookieValue: await openOidcFlow(db, flow, now), authorizationUrl };
  }

  /**
   * Finishes a sign-in at the callback: takes the flow (once), checks the answer against it, redeems the
   * code and verifies the ID token, then maps the person's groups to a role.
   */
  async finish(
    db: Database,
    { cookieValue, query, now }: { cookieValue: string | undefined; query: URLSearchParams; now: Date },
  ): Promise<{ identity: OidcIdentity; role: ConsoleRole; returnTo: string }> {
    const flow = await takeOidcFlow(db, cookieValue, now);
    if (!flow) throw new OidcSignInRefused('no_flow');
    if (!sameSecret(query.get('state'), flow.state)) throw new OidcSignInRefused('state');
    const configuration = await this.discover();
    const callback = new URL(this.redirectUri);
    callback.search = query.toString();
    let claims: oidc.IDToken | undefined;
    try {
      const tokens = await oidc.authorizationCodeGrant(configuration, callback, {
        pkceCodeVerifier: flow.codeVerifier,
        expectedState: flow.state,
        expectedNonce: flow.nonce,
        idTokenExpected: true,
      });
      claims = tokens.claims();
    } catch (error) {
      throw new OidcSignInRefused(refusalOf(error), describe(error));
    }
    if (!claims) throw new OidcSignInRefused('id_token', 'no ID token');
    const role = roleOfClaims(claims, this.settings);
    const identity: OidcIdentity = {
      issuer: claims.iss,
      subject: claims.sub,
      email: typeof claims.email === 'string' && claims.email.length <= 320 ? claims.email : null,
      name: typeof claims.name === 'string' && claims.name.length <= 200 ? claims.name : null,
    };
    if (!role) throw new OidcSignInRefused('no_role', `${identity.email ?? identity.subject} is in no mapped group`);
    return { identity, role, returnTo: flow.returnTo };
  }

  /**
   * Where to send a person signing out so the provider ends its session too (RP-initiated logout), when
   * the provider offers it and discovery has been made; undefined otherwise (only the console session ends).
   */
  async endSessionUrl(postLogoutRedirectUri: URL): Promise<URL | undefined> {
    let configuration: oidc.Configuration;
    try {
      configuration = await this.discover();
    } catch {
      return undefined;
    }
    if (!configuration.serverMetadata().end_session_endpoint) return undefined;
    return oidc.buildEndSessionUrl(configuration, {
      client_id: this.settings.clientId,
      post_logout_redirect_uri: postLogoutRedirectUri.href,
    });
  }

  /**
   * The origins the console's forms may lead to (RP-initiated sign-out): the issuer's, and the end-session
   * endpoint's when discovery named one on another origin.
   */
  formOrigins(): string[] {
    const origins = new Set([this.settings.issuer.origin]);
    const endSession = this.metadata?.end_session_endpoint;
    if (endSession !== undefined && URL.canParse(endSession)) {
      const url = new URL(endSession);
      if (url.protocol === 'https:' || url.protocol === 'http:') origins.add(url.origin);
    }
    return [...origins];
  }
}

function sameSecret(given: string | null, expected: string): boolean {
  if (given === null) return false;
  return timingSafeEqual(Buffer.from(sha256Hex(given)), Buffer.from(sha256Hex(expected)));
}

/** Which refusal a library error is: the provider unreachable, its own refusal, the code refused, or the ID token failing. */
function refusalOf(error: unknown): OidcRefusalReason {
  if (error instanceof oidc.AuthorizationResponseError) return 'provider_refused';
  if (error instanceof oidc.ResponseBodyError) return error.status >= 500 ? 'unavailable' : 'code';
  if (error instanceof TypeError) return 'unavailable';
  const code = error instanceof oidc.ClientError ? error.code : undefined;
  if (code === 'OAUTH_TIMEOUT' || code === 'OAUTH_ABORT' || code === 'OAUTH_RESPONSE_IS_NOT_CONFORM')
    return 'unavailable';
  return 'id_token';
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.name}${typeof code === 'string' ? ` ${code}` : ''}: ${error.message}${cause}`;
}
