import createFetchClient from 'openapi-fetch';
import { parseRetryAfter, SlowdnsApiError, SlowdnsNetworkError, SlowdnsUnexpectedResponseError, type ErrorCode } from './errors.js';
import type { components, paths } from './schema.js';

type Schemas = components['schemas'];
export type Health = Schemas['Health'];
export type IssuedInstallCode = Schemas['IssuedInstallCode'];
export type PrecheckRequest = Schemas['PrecheckRequest'];
export type PrecheckResult = Schemas['PrecheckResult'];
export type ActivateRequest = Schemas['ActivateRequest'];
export type Activation = Schemas['Activation'];
export type ConfirmRequest = Schemas['ConfirmRequest'];
export type ConfirmResult = Schemas['ConfirmResult'];
export type ReleaseRequest = Schemas['ReleaseRequest'];
export type ReleaseResult = Schemas['ReleaseResult'];
export type RegisterRequest = Schemas['RegisterRequest'];
export type RegisteredServer = Schemas['RegisteredServer'];
export type CheckinRequest = Schemas['CheckinRequest'];
export type CheckinResult = Schemas['CheckinResult'];
export type RevokeRequest = Schemas['RevokeRequest'];
export type RevokeResult = Schemas['RevokeResult'];
export type ServiceStatus = Schemas['ServiceStatus'];
export type ServerRecord = Schemas['ServerRecord'];

export interface ClientOptions {
  /** Origin of the service, e.g. `https://activation.example.net` (paths are appended to it). */
  baseUrl: string;
  /** A fetch to use instead of `globalThis.fetch`: a proxy-aware one, or `app.fetch` in tests. */
  fetch?: (request: Request) => Promise<Response>;
  /** Headers sent with every request (e.g. `User-Agent: my-installer/2026.11.20.1`). */
  headers?: Record<string, string>;
}

export interface CallOptions {
  /** Aborts the request; it then fails with a SlowdnsNetworkError whose `cause` is the abort reason. */
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

export interface IssueOptions extends CallOptions {
  /**
   * Value of the `slowdns_browser` cookie, for callers outside a browser. In a browser leave it out:
   * the browser sends the cookie itself (the cookie is HttpOnly, and `Cookie` is a forbidden header there).
   */
  browserSession?: string;
}

/**
 * The typed client. Each method is one operation of the contract; it resolves with the `data`
 * object of the success envelope (the `meta.message` is a human sentence and is dropped) and
 * rejects with a SlowdnsApiError (the service said no), a SlowdnsNetworkError (no answer) or a
 * SlowdnsUnexpectedResponseError (an answer that is not the service's).
 */
export interface SlowdnsClient {
  /** GET /api/v2/healthz: 200 once the service and its database are up. */
  healthz(options?: CallOptions): Promise<Health>;
  /** POST /api/v2/slowdns/code/issue: a new install code for a browser session (the page does this). */
  issueInstallCode(options?: IssueOptions): Promise<IssuedInstallCode>;
  /** POST /api/v2/slowdns/install/precheck: right after the code is entered; changes no state. */
  precheck(body: PrecheckRequest, options?: CallOptions): Promise<PrecheckResult>;
  /** POST /api/v2/slowdns/install/activate: after the operator confirmed hostname and public IP. */
  activate(body: ActivateRequest, options?: CallOptions): Promise<Activation>;
  /** POST /api/v2/slowdns/install/confirm: once every service runs; consumes the install token. */
  confirm(body: ConfirmRequest, options?: CallOptions): Promise<ConfirmResult>;
  /** POST /api/v2/slowdns/install/release: on failure before confirm; idempotent. */
  release(body: ReleaseRequest, options?: CallOptions): Promise<ReleaseResult>;

  // The legacy-compatible routes (no /api/v2 prefix), for the installer and the server agent.
  /** POST /register: after activate and before confirm; answers the agent token, once. */
  register(body: RegisterRequest, options?: CallOptions): Promise<RegisteredServer>;
  /** POST /checkin with the agent token: answers `status` (`revoked` means stop) and the next interval. */
  checkin(agentToken: string, body: CheckinRequest, options?: CallOptions): Promise<CheckinResult>;
  /**
   * POST /revoke: with the agent token (its own server; `body` may be left out) or with the operator's
   * `ADMIN_TOKEN` and `{ server_id }`. Idempotent.
   */
  revoke(token: string, body?: RevokeRequest, options?: CallOptions): Promise<RevokeResult>;
  /** GET /status: without a token the service's status, with an agent token that agent's server. */
  status(options?: CallOptions): Promise<ServiceStatus>;
  status(agentToken: string, options?: CallOptions): Promise<ServerRecord>;
}

/** What openapi-fetch resolves with, reduced to what the client reads. */
interface FetchOutcome<T> {
  data?: { data: T };
  error?: unknown;
  response: Response;
}

export function createClient(options: ClientOptions): SlowdnsClient {
  const baseFetch = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  // Options are built without `key: undefined` entries: consumers compiling this source with
  // `exactOptionalPropertyTypes` reject them (test/exact-optional-types.test.ts).
  const api = createFetchClient<paths>(options.headers === undefined ? { baseUrl: options.baseUrl } : { baseUrl: options.baseUrl, headers: options.headers });

  /**
   * Runs one operation with its own fetch, which keeps the answer's status and headers (openapi-fetch
   * drops them when a 2xx body fails to parse) and marks where "no answer" ends: everything thrown
   * before a Response exists is a network failure, everything after it is about the answer.
   */
  async function call<T>(operation: string, send: (fetch: (request: Request) => Promise<Response>) => Promise<FetchOutcome<T>>): Promise<T> {
    let url = options.baseUrl;
    let answer: Response | undefined;
    let outcome: FetchOutcome<T>;
    try {
      outcome = await send(async (request) => {
        url = request.url;
        answer = await baseFetch(request);
        return answer;
      });
    } catch (thrown) {
      // No answer, or the connection broke while the body was read.
      if (!answer || !(thrown instanceof SyntaxError)) throw new SlowdnsNetworkError(operation, url, thrown);
      throw new SlowdnsUnexpectedResponseError(operation, answer.status, answer.headers.get('x-request-id') ?? undefined, thrown.message);
    }
    const { response } = outcome;
    const requestId = response.headers.get('x-request-id') ?? undefined;
    if (response.ok && isSuccessEnvelope(outcome.data)) return outcome.data.data;
    const envelope = errorEnvelope(outcome.error);
    if (!response.ok && envelope) {
      throw new SlowdnsApiError({
        operation,
        status: response.status,
        code: envelope.code,
        message: envelope.message,
        retryAfterSeconds: parseRetryAfter(response.headers.get('retry-after')),
        requestId,
      });
    }
    const body = response.ok ? outcome.data : outcome.error;
    throw new SlowdnsUnexpectedResponseError(operation, response.status, requestId, (typeof body === 'string' ? body : (JSON.stringify(body) ?? '')).slice(0, 200));
  }

  return {
    healthz: (o = {}) => call('getHealth', (fetch) => api.GET('/api/v2/healthz', { ...o, fetch })),
    issueInstallCode: ({ browserSession, ...o } = {}) => {
      const withCookie = browserSession === undefined ? o : { ...o, headers: { ...o.headers, cookie: `slowdns_browser=${browserSession}` } };
      return call('issueInstallCode', (fetch) => api.POST('/api/v2/slowdns/code/issue', { ...withCookie, fetch }));
    },
    precheck: (body, o = {}) => call('precheckInstallCode', (fetch) => api.POST('/api/v2/slowdns/install/precheck', { ...o, body, fetch })),
    activate: (body, o = {}) => call('activateInstallCode', (fetch) => api.POST('/api/v2/slowdns/install/activate', { ...o, body, fetch })),
    confirm: (body, o = {}) => call('confirmInstall', (fetch) => api.POST('/api/v2/slowdns/install/confirm', { ...o, body, fetch })),
    release: (body, o = {}) => call('releaseInstall', (fetch) => api.POST('/api/v2/slowdns/install/release', { ...o, body, fetch })),
    register: (body, o = {}) => call('registerServer', (fetch) => api.POST('/register', { ...o, body, fetch })),
    checkin: (agentToken, body, o = {}) =>
      call('checkInServer', (fetch) => api.POST('/checkin', { ...o, body, fetch, headers: bearer(agentToken, o.headers) })),
    revoke: (token, body, o = {}) => call('revokeServer', (fetch) => api.POST('/revoke', { ...o, body, fetch, headers: bearer(token, o.headers) })),
    status: ((tokenOrOptions?: string | CallOptions, maybeOptions: CallOptions = {}) => {
      const agentToken = typeof tokenOrOptions === 'string' ? tokenOrOptions : undefined;
      const o = typeof tokenOrOptions === 'string' ? maybeOptions : (tokenOrOptions ?? {});
      const withToken = agentToken === undefined ? o : { ...o, headers: bearer(agentToken, o.headers) };
      // The contract's answer is the union of both shapes; which one is decided by the token.
      return call('getStatus', (fetch) => api.GET('/status', { ...withToken, fetch }));
    }) as SlowdnsClient['status'],
  };
}

function bearer(token: string, headers: Record<string, string> | undefined): Record<string, string> {
  return { ...headers, authorization: `Bearer ${token}` };
}

function isSuccessEnvelope<T>(body: { data: T } | undefined): body is { data: T } {
  return typeof body === 'object' && body !== null && 'data' in body;
}

function errorEnvelope(body: unknown): { code: ErrorCode; message: string } | undefined {
  if (typeof body !== 'object' || body === null || !('error' in body)) return undefined;
  const error = (body as { error: unknown }).error;
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code !== 'string' || typeof message !== 'string') return undefined;
  // A newer service may add codes; they still arrive as SlowdnsApiError with the status telling the class.
  return { code: code as ErrorCode, message };
}
