import { type AdminClient, createAdminClient } from '../../clients/typescript/src/admin-client.js';
import { CliError } from './cli-error.js';

/** JSON answers only: a list's NDJSON export is read as a stream (`--all`), not through the typed client. */
export type AdminApi = AdminClient;

/**
 * How often a request that got no answer, a 503 or a 409 `idempotency_key_in_flight` is sent again (with
 * backoff, `Retry-After` honoured): every create carries its own Idempotency-Key, kept across the retries,
 * so a lost answer is answered again instead of making a second code, token or webhook secret.
 */
const RETRIES = 3;

export interface AdminConnection {
  url: string;
  token: string | undefined;
}

/** The TypeScript client's admin API for the service at `url`, authenticated with the operator token. */
export function adminApi({ url, token }: AdminConnection): AdminApi {
  if (!token)
    throw new CliError(
      "SLOWDNS_ADMIN_TOKEN is not set: export the service's ADMIN_TOKEN, or a named operator token (slowdns tokens create), as SLOWDNS_ADMIN_TOKEN",
      2,
    );
  return createAdminClient({ baseUrl: url, token, retry: RETRIES });
}

/** How a request that never got an answer fails: exit 3, naming the service. */
function unreachable(url: string, err: unknown): CliError {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return new CliError(
    `cannot reach the service at ${url}: ${cause?.code ?? cause?.message ?? (err as Error).message}; is it running there? Name its address with --url or SLOWDNS_URL`,
    3,
  );
}

/** A refused answer as one line: its status, error code and message; or that it is not this service's. */
function refusal(url: string, response: Response, body: unknown): CliError {
  const error = (body as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
  if (typeof error?.code === 'string' && typeof error.message === 'string') {
    // A refused token names the service it was refused by, and where the token comes from.
    const where =
      response.status === 401 || response.status === 403 ? ` (${url}; the token is SLOWDNS_ADMIN_TOKEN)` : '';
    return new CliError(`${response.status} ${error.code}: ${error.message}${where}`);
  }
  return new CliError(
    `unexpected answer from ${url}: HTTP ${response.status} (is this the SlowDNS activation service?)`,
  );
}

/**
 * A list's NDJSON export (every matching item, `Accept: application/x-ndjson`), handed to `write` chunk by
 * chunk as it arrives: the command holds no more of it than the service does.
 */
export async function exportList(
  connection: AdminConnection,
  path: string,
  query: Record<string, string | number | undefined>,
  write: (text: string) => void,
): Promise<void> {
  if (!connection.token) adminApi(connection); // the same refusal as every admin command
  const search = new URLSearchParams(
    Object.entries(query).flatMap(([k, v]) => (v === undefined ? [] : [[k, String(v)]])),
  );
  const url = `${connection.url.replace(/\/+$/, '')}${path}${search.size ? `?${search}` : ''}`;
  let response: Response;
  try {
    response = await fetch(url, {
      headers: { authorization: `Bearer ${connection.token}`, accept: 'application/x-ndjson' },
    });
  } catch (err) {
    throw unreachable(connection.url, err);
  }
  if (!response.ok || !response.body)
    throw refusal(connection.url, response, await response.json().catch(() => undefined));
  const decoder = new TextDecoder();
  try {
    const reader = response.body.getReader();
    for (let read = await reader.read(); !read.done; read = await reader.read())
      write(decoder.decode(read.value, { stream: true }));
  } catch (err) {
    throw new CliError(`the export from ${connection.url} ended early: ${(err as Error).message}`);
  }
}

/** What openapi-fetch resolves with, reduced to what `dataOf` reads. */
export type Answer<T> = { data?: { data: T }; error?: unknown; response: Response };

/**
 * The `data` of a successful answer. Anything else is a CliError of one line: the service's status,
 * error code and message, or why it could not be reached.
 */
export async function dataOf<T>(url: string, request: Promise<Answer<T>>): Promise<T> {
  let answer: Answer<T>;
  try {
    answer = await request;
  } catch (err) {
    throw unreachable(url, err);
  }
  if (answer.response.ok && answer.data && 'data' in answer.data) return answer.data.data;
  throw refusal(url, answer.response, answer.error);
}
