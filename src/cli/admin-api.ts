import createFetchClient from 'openapi-fetch';
import type { paths } from '../../clients/typescript/src/schema.js';
import { CliError } from './cli-error.js';

export type AdminApi = ReturnType<typeof createFetchClient<paths>>;

export interface AdminConnection {
  url: string;
  token: string | undefined;
}

/** The generated client for the admin API of the service at `url`, authenticated with the operator token. */
export function adminApi({ url, token }: AdminConnection): AdminApi {
  if (!token) throw new CliError("SLOWDNS_ADMIN_TOKEN is not set: export the service's ADMIN_TOKEN, or a named operator token (slowdns tokens create), as SLOWDNS_ADMIN_TOKEN", 2);
  return createFetchClient<paths>({ baseUrl: url.replace(/\/+$/, ''), headers: { authorization: `Bearer ${token}` } });
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
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw new CliError(`cannot reach the service at ${url}: ${cause?.code ?? cause?.message ?? (err as Error).message}`, 3);
  }
  if (answer.response.ok && answer.data && 'data' in answer.data) return answer.data.data;
  const error = (answer.error as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
  if (typeof error?.code === 'string' && typeof error.message === 'string') {
    throw new CliError(`${answer.response.status} ${error.code}: ${error.message}`);
  }
  throw new CliError(`unexpected answer from ${url}: HTTP ${answer.response.status} (is this the SlowDNS activation service?)`);
}
