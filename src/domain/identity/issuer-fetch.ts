import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { lookupOnly, resolveWebhookTarget, type WebhookSafety } from '../webhooks/url-safety.js';

/** An issuer's discovery or key set that could not be had: the reason, in a few words, for the log and explain. */
export class IssuerUnreachable extends Error {}

/** A discovery document or a key set is small: anything larger is not one. */
const MAX_DOCUMENT_BYTES = 256 * 1024;
const ISSUER_FETCH_TIMEOUT_MS = 5000;

export interface IssuerFetchOptions {
  safety: WebhookSafety;
  /** Certificates to trust besides the system's (tests serve an issuer over https with their own). */
  ca?: string | undefined;
  timeoutMs?: number;
}

/**
 * GETs a JSON document of an issuer through the webhooks' address checks (DESIGN §15, §23, §25): the host is
 * resolved and every address checked, the connection goes to the checked address only, redirects are not
 * followed, the answer is cut at 256 KB and the whole request at the timeout.
 */
export async function fetchIssuerJson(url: string, options: IssuerFetchOptions): Promise<unknown> {
  let target: Awaited<ReturnType<typeof resolveWebhookTarget>>;
  try {
    target = await resolveWebhookTarget(url, options.safety);
  } catch (err) {
    throw new IssuerUnreachable(`refused: ${(err as Error).message}`);
  }
  const request = target.url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<unknown>((resolve, reject) => {
    const req = request(target.url, {
      method: 'GET',
      headers: { accept: 'application/json', 'user-agent': 'SlowDNS-Identity/1' },
      lookup: lookupOnly(target),
      agent: false,
      ...(options.ca ? { ca: options.ca } : {}),
    });
    const timer = setTimeout(() => {
      req.destroy();
      reject(new IssuerUnreachable('timeout'));
    }, options.timeoutMs ?? ISSUER_FETCH_TIMEOUT_MS);
    const fail = (reason: string) => {
      clearTimeout(timer);
      reject(new IssuerUnreachable(reason));
    };
    req.on('error', (err: NodeJS.ErrnoException) => fail(`network: ${err.code ?? 'error'}`));
    req.on('response', (res) => {
      if (res.statusCode !== 200) {
        res.destroy();
        return fail(`status ${res.statusCode}`);
      }
      const chunks: Buffer[] = [];
      let read = 0;
      res.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > MAX_DOCUMENT_BYTES) {
          res.destroy();
          return fail('answer too large');
        }
        chunks.push(chunk);
      });
      res.on('error', () => fail('answer cut'));
      res.on('end', () => {
        clearTimeout(timer);
        try {
          resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        } catch {
          reject(new IssuerUnreachable('answer is not JSON'));
        }
      });
    });
    req.end();
  });
}
