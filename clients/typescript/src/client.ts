import createFetchClient from 'openapi-fetch';
import {
  parseRetryAfter,
  SlowdnsApiError,
  SlowdnsNetworkError,
  SlowdnsTimeoutError,
  SlowdnsUnexpectedResponseError,
  type ErrorCode,
} from './errors.js';
import { defaultRetry, retryDelayMs, sleep, type RetryOptions } from './retry.js';
import type { components, paths } from './schema.js';
import { CLIENT_NAME, CLIENT_VERSION } from './version.js';

type Schemas = components['schemas'];
export type Health = Schemas['Health'];
export type IssuedInstallCode = Schemas['IssuedInstallCode'];
export type WatchedInstallCodes = Schemas['WatchedInstallCodes'];
export type WatchedInstallCode = Schemas['WatchedInstallCode'];
export type CancelInstallCodeRequest = Schemas['CancelInstallCodeRequest'];
type DecideApprovalRequest = Schemas['DecideApprovalRequest'];
export type PrecheckRequest = Schemas['PrecheckRequest'];
export type PrecheckResult = Schemas['PrecheckResult'];
export type ActivateRequest = Schemas['ActivateRequest'];
export type Activation = Schemas['Activation'];
export type ConfirmRequest = Schemas['ConfirmRequest'];
export type ConfirmResult = Schemas['ConfirmResult'];
export type ReleaseRequest = Schemas['ReleaseRequest'];
export type ReleaseResult = Schemas['ReleaseResult'];
export type InstallStatusRequest = Schemas['InstallStatusRequest'];
export type InstallStatus = Schemas['InstallStatus'];
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
  /**
   * Headers sent with every request. The client sends `User-Agent: @slowdns/activation-client/<version>`;
   * a `User-Agent` given here goes in front of it (`my-installer/2026.11.20.1 @slowdns/activation-client/0.1.0`).
   */
  headers?: Record<string, string>;
  /** How long one request may take, answer body included, before it fails with a SlowdnsTimeoutError. Default 30 000 ms; 0 for none. */
  timeoutMs?: number;
  /**
   * Opt-in retries of the steps that are safe to repeat (every method but `issueInstallCode`), on 503 and
   * network failures only, never on 429. A number is `maxRetries`. Default: none.
   */
  retry?: number | RetryOptions;
}

/** The default `timeoutMs`. */
export const DEFAULT_TIMEOUT_MS = 30_000;

export interface CallOptions {
  /** Aborts the request; it then fails with a SlowdnsNetworkError whose `cause` is the abort reason. */
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

/** The options of the browser-session routes: issuing a code, following it, cancelling it. */
export interface BrowserSessionOptions extends CallOptions {
  /**
   * Value of the `slowdns_browser` cookie, for callers outside a browser. In a browser leave it out:
   * the browser sends the cookie itself (the cookie is HttpOnly, and `Cookie` is a forbidden header there).
   */
  browserSession?: string;
}

/** The options of `issueInstallCode`: every browser-session route's, and whether machines wait for approval. */
export interface IssueOptions extends BrowserSessionOptions {
  /** Every machine waits for this session's approval (`approveInstallCodePrecheck`) before it can activate (DESIGN §14). */
  requireApproval?: boolean;
}

/**
 * The typed client. Each method is one operation of the contract; it resolves with the `data`
 * object of the success envelope (the `meta.message` is a human sentence and is dropped) and
 * rejects with a SlowdnsApiError (the service said no), a SlowdnsNetworkError (no answer) or a
 * SlowdnsUnexpectedResponseError (an answer that is not the service's).
 */
export interface SlowdnsClient {
  /** The service's address as given to `createClient`: a machine proof names its origin. */
  readonly baseUrl: string;
  /** GET /api/v2/healthz: 200 once the service and its database are up. */
  healthz(options?: CallOptions): Promise<Health>;
  /** POST /api/v2/slowdns/code/issue: a new install code for a browser session (the page does this). */
  issueInstallCode(options?: IssueOptions): Promise<IssuedInstallCode>;
  /**
   * GET /api/v2/slowdns/code/status: what became of the codes this browser session issued (newest first),
   * with the machine that used each one; never a code or a token. What the page polls.
   */
  installCodeStatus(options?: BrowserSessionOptions): Promise<WatchedInstallCodes>;
  /**
   * POST /api/v2/slowdns/code/cancel: the session that issued a code stops it ("Not you?"). Idempotent;
   * a confirmed install cannot be undone (409 `activation_confirmed`).
   */
  cancelInstallCode(body: CancelInstallCodeRequest, options?: BrowserSessionOptions): Promise<WatchedInstallCode>;
  /**
   * POST /api/v2/slowdns/code/approve: the session that issued a code issued with approval lets the machine
   * of one precheck (`prechecks` of `installCodeStatus`) activate it. The same decision again answers 200;
   * the other one afterwards is 409 `approval_decided`.
   */
  approveInstallCodePrecheck(body: DecideApprovalRequest, options?: BrowserSessionOptions): Promise<WatchedInstallCode>;
  /** POST /api/v2/slowdns/code/deny: as approve, but the code is revoked; the machine gets 403 `approval_denied`. */
  denyInstallCodePrecheck(body: DecideApprovalRequest, options?: BrowserSessionOptions): Promise<WatchedInstallCode>;
  /** POST /api/v2/slowdns/install/precheck: right after the code is entered; changes no state. */
  precheck(body: PrecheckRequest, options?: CallOptions): Promise<PrecheckResult>;
  /** POST /api/v2/slowdns/install/activate: after the operator confirmed hostname and public IP. */
  activate(body: ActivateRequest, options?: CallOptions): Promise<Activation>;
  /** POST /api/v2/slowdns/install/confirm: once every service runs; consumes the install token. */
  confirm(body: ConfirmRequest, options?: CallOptions): Promise<ConfirmResult>;
  /** POST /api/v2/slowdns/install/release: on failure before confirm; idempotent. */
  release(body: ReleaseRequest, options?: CallOptions): Promise<ReleaseResult>;
  /** POST /api/v2/slowdns/install/status: where an install stands, for a rerun that resumes or releases. Changes nothing. */
  installStatus(body: InstallStatusRequest, options?: CallOptions): Promise<InstallStatus>;

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

/** Operations that may be sent again after a 503 or a lost answer (DESIGN §10, §20): issue makes a new code each time. */
type Retry = 'retry' | 'once';

function withUserAgent(headers: Record<string, string> = {}): Record<string, string> {
  const ours = `${CLIENT_NAME}/${CLIENT_VERSION}`;
  const name = Object.keys(headers).find((key) => key.toLowerCase() === 'user-agent');
  if (name === undefined) return { ...headers, 'User-Agent': ours };
  return { ...headers, [name]: `${headers[name]} ${ours}` };
}

export function createClient(options: ClientOptions): SlowdnsClient {
  const baseFetch = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const retry = {
    ...defaultRetry,
    ...(typeof options.retry === 'number' ? { maxRetries: options.retry } : options.retry),
  };
  // Options are built without `key: undefined` entries: consumers compiling this source with
  // `exactOptionalPropertyTypes` reject them (test/exact-optional-types.test.ts).
  const api = createFetchClient<paths>({ baseUrl: options.baseUrl, headers: withUserAgent(options.headers) });

  /** One operation, sent again after a 503 or a network failure when `mode` allows and `retry` asks for it. */
  async function call<T>(
    operation: string,
    mode: Retry,
    callerSignal: AbortSignal | undefined,
    send: (fetch: (request: Request) => Promise<Response>) => Promise<FetchOutcome<T>>,
  ): Promise<T> {
    for (let attempt = 0; ; attempt += 1) {
      try {
        return await callOnce(operation, send);
      } catch (error) {
        const wait = mode === 'retry' ? retryDelayMs(error, attempt, retry, callerSignal) : undefined;
        if (wait === undefined) throw error;
        await sleep(wait, callerSignal).catch(() => {
          throw error;
        });
      }
    }
  }

  /**
   * Runs one operation with its own fetch, which keeps the answer's status and headers (openapi-fetch
   * drops them when a 2xx body fails to parse) and marks where "no answer" ends: everything thrown
   * before a Response exists is a network failure, everything after it is about the answer.
   */
  async function callOnce<T>(
    operation: string,
    send: (fetch: (request: Request) => Promise<Response>) => Promise<FetchOutcome<T>>,
  ): Promise<T> {
    let url = options.baseUrl;
    let answer: Response | undefined;
    let outcome: FetchOutcome<T>;
    // One attempt, answer body included, gets `timeoutMs`; the caller's own signal still aborts it too.
    const timeout = timeoutMs > 0 ? AbortSignal.timeout(timeoutMs) : undefined;
    try {
      outcome = await send(async (request) => {
        url = request.url;
        const sent = timeout ? new Request(request, { signal: AbortSignal.any([request.signal, timeout]) }) : request;
        // Both requests are held until the fetch settles (the closure below keeps them): Node's fetch
        // follows the signal of a copied Request only weakly, so a garbage collection while waiting for
        // the answer lost the timeout and the call never ended (nodejs/undici#4068; Node 20, 22, 24).
        answer = await baseFetch(sent).finally(() => [request, sent]);
        return answer;
      });
    } catch (thrown) {
      if (timeout?.aborted) throw new SlowdnsTimeoutError(operation, url, timeoutMs);
      // No answer, or the connection broke while the body was read.
      if (!answer || !(thrown instanceof SyntaxError)) throw new SlowdnsNetworkError(operation, url, thrown);
      throw new SlowdnsUnexpectedResponseError(
        operation,
        answer.status,
        answer.headers.get('x-request-id') ?? undefined,
        thrown.message,
      );
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
    throw new SlowdnsUnexpectedResponseError(
      operation,
      response.status,
      requestId,
      (typeof body === 'string' ? body : (JSON.stringify(body) ?? '')).slice(0, 200),
    );
  }

  /** The call's options with the session cookie added, for a caller outside a browser. */
  const withBrowserSession = ({ browserSession, ...o }: BrowserSessionOptions): CallOptions =>
    browserSession === undefined ? o : { ...o, headers: { ...o.headers, cookie: `slowdns_browser=${browserSession}` } };

  const installStatus: SlowdnsClient['installStatus'] = (body, o = {}) =>
    call('getInstallStatus', 'retry', o.signal, (fetch) =>
      api.POST('/api/v2/slowdns/install/status', { ...o, body, fetch }),
    );

  return {
    baseUrl: options.baseUrl,
    healthz: (o = {}) => call('getHealth', 'retry', o.signal, (fetch) => api.GET('/api/v2/healthz', { ...o, fetch })),
    issueInstallCode: ({ requireApproval, ...o } = {}) =>
      call('issueInstallCode', 'once', o.signal, (fetch) =>
        api.POST('/api/v2/slowdns/code/issue', {
          ...withBrowserSession(o),
          ...(requireApproval === undefined ? {} : { body: { require_approval: requireApproval } }),
          fetch,
        }),
      ),
    installCodeStatus: (o = {}) =>
      call('getInstallCodeStatus', 'retry', o.signal, (fetch) =>
        api.GET('/api/v2/slowdns/code/status', { ...withBrowserSession(o), fetch }),
      ),
    // Idempotent: a repeat answers the code as it is.
    cancelInstallCode: (body, o = {}) =>
      call('cancelInstallCode', 'retry', o.signal, (fetch) =>
        api.POST('/api/v2/slowdns/code/cancel', { ...withBrowserSession(o), body, fetch }),
      ),
    // A repeated decision answers 200 with the code as it is: safe to repeat.
    approveInstallCodePrecheck: (body, o = {}) =>
      call('approveInstallCodePrecheck', 'retry', o.signal, (fetch) =>
        api.POST('/api/v2/slowdns/code/approve', { ...withBrowserSession(o), body, fetch }),
      ),
    denyInstallCodePrecheck: (body, o = {}) =>
      call('denyInstallCodePrecheck', 'retry', o.signal, (fetch) =>
        api.POST('/api/v2/slowdns/code/deny', { ...withBrowserSession(o), body, fetch }),
      ),
    precheck: (body, o = {}) =>
      call('precheckInstallCode', 'retry', o.signal, (fetch) =>
        api.POST('/api/v2/slowdns/install/precheck', { ...o, body, fetch }),
      ),
    // Safe to repeat by the service's retry rule: the same precheck token and body give the same activation.
    activate: (body, o = {}) =>
      call('activateInstallCode', 'retry', o.signal, (fetch) =>
        api.POST('/api/v2/slowdns/install/activate', { ...o, body, fetch }),
      ),
    confirm: async (body, o = {}) => {
      let attempts = 0;
      try {
        return await call('confirmInstall', 'retry', o.signal, (fetch) => {
          attempts += 1;
          return api.POST('/api/v2/slowdns/install/confirm', { ...o, body, fetch });
        });
      } catch (error) {
        // A resent confirm whose first copy did arrive finds its own token used: ask where the install stands.
        if (attempts > 1 && error instanceof SlowdnsApiError && error.code === 'install_token_used') {
          const current = await installStatus(body, o);
          if (current.status === 'confirmed' && current.receipt)
            return { activation_id: current.activation_id, status: 'confirmed', receipt: current.receipt };
        }
        throw error;
      }
    },
    release: (body, o = {}) =>
      call('releaseInstall', 'retry', o.signal, (fetch) =>
        api.POST('/api/v2/slowdns/install/release', { ...o, body, fetch }),
      ),
    installStatus,
    // Safe to resend before the server's first check-in (DESIGN §20): the repeat answers a new agent token and
    // the one a lost answer carried stops working. After a check-in a repeat is 409, as it always was.
    register: (body, o = {}) =>
      call('registerServer', 'retry', o.signal, (fetch) => api.POST('/register', { ...o, body, fetch })),
    checkin: (agentToken, body, o = {}) =>
      call('checkInServer', 'retry', o.signal, (fetch) =>
        api.POST('/checkin', { ...o, body, fetch, headers: bearer(agentToken, o.headers) }),
      ),
    revoke: (token, body, o = {}) =>
      call('revokeServer', 'retry', o.signal, (fetch) =>
        api.POST('/revoke', { ...o, body, fetch, headers: bearer(token, o.headers) }),
      ),
    status: ((tokenOrOptions?: string | CallOptions, maybeOptions: CallOptions = {}) => {
      const agentToken = typeof tokenOrOptions === 'string' ? tokenOrOptions : undefined;
      const o = typeof tokenOrOptions === 'string' ? maybeOptions : (tokenOrOptions ?? {});
      const withToken = agentToken === undefined ? o : { ...o, headers: bearer(agentToken, o.headers) };
      // The contract's answer is the union of both shapes; which one is decided by the token.
      return call('getStatus', 'retry', o.signal, (fetch) => api.GET('/status', { ...withToken, fetch }));
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
