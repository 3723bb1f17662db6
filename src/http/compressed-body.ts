import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { Context } from 'hono';

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

type Encoding = 'br' | 'gzip';

/** The encoding to send: brotli, else gzip, else none; `q=0` refuses one. */
export function negotiateEncoding(acceptEncoding: string | undefined): Encoding | undefined {
  const accepted = new Set<string>();
  for (const part of (acceptEncoding ?? '').toLowerCase().split(',')) {
    const [name = '', ...params] = part.trim().split(';');
    if (!params.some((p) => /^\s*q=0(\.0*)?\s*$/.test(p))) accepted.add(name.trim());
  }
  if (accepted.has('br')) return 'br';
  if (accepted.has('gzip') || accepted.has('*')) return 'gzip';
  return undefined;
}

/**
 * A fixed body (an asset, a rendered page) sent compressed when the client accepts it. Each encoding is
 * made once, off the event loop, the first time a client asks for it, and kept: static files are
 * never compressed twice. Brotli at quality 5: within a few percent of the best and fast enough to
 * make on the first request (quality 11 takes over a minute for Scalar's 3.5 MB bundle).
 */
export function compressedBody(
  load: () => Promise<string | Buffer>,
): (c: Context, headers: Record<string, string>) => Promise<Response> {
  let raw: Promise<Buffer> | undefined;
  const encoded = new Map<Encoding, Promise<Buffer>>();
  const bytes = () => (raw ??= load().then((b) => (typeof b === 'string' ? Buffer.from(b) : b)));
  const encode = (encoding: Encoding) => {
    let body = encoded.get(encoding);
    if (!body) {
      body = bytes().then((b) =>
        encoding === 'br'
          ? brotli(b, { params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_SIZE_HINT]: b.length } })
          : gzipAsync(b, { level: 6 }),
      );
      // A failure is not kept: the next request tries again.
      body.catch(() => encoded.delete(encoding));
      encoded.set(encoding, body);
    }
    return body;
  };
  return async (c, headers) => {
    const encoding = negotiateEncoding(c.req.header('Accept-Encoding'));
    const body = encoding ? await encode(encoding) : await bytes();
    c.header('Vary', 'Accept-Encoding');
    if (encoding) c.header('Content-Encoding', encoding);
    return c.body(body as Uint8Array<ArrayBuffer>, 200, headers);
  };
}
