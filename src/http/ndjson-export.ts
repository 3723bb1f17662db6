import type { Context } from 'hono';
import type { Page } from '../domain/admin/pagination.js';
import type { AppEnv } from './app-env.js';

export const NDJSON = 'application/x-ndjson';

/** Rows read per statement of an export. */
const EXPORT_PAGE_SIZE = 500;

/** The request asks for the list as NDJSON (`Accept: application/x-ndjson`, not refused with `q=0`). */
export function wantsNdjson(c: Context<AppEnv>): boolean {
  return (c.req.header('accept') ?? '')
    .toLowerCase()
    .split(',')
    .some((part) => {
      const [type = '', ...params] = part.trim().split(';');
      return type.trim() === NDJSON && !params.some((p) => /^\s*q=0(\.0*)?\s*$/.test(p));
    });
}

/** A page as the answer sends it: its lines, encoded, and where the next page starts. */
interface EncodedPage {
  bytes: Uint8Array | undefined;
  nextCursor: string | null;
}

/**
 * Every item of a list, one JSON object per line, read page by page (keyset, `EXPORT_PAGE_SIZE` rows
 * a statement, from `cursor` on) as the client reads them. While one page is written to the client the
 * next one is read and turned into its lines, so the database and this process work at once, and no
 * further: the stream asks for a page only once the client has taken the one before (the server waits
 * for the socket to drain). A page's rows are made into its bytes as soon as they arrive, so what an
 * export holds between pages is two pages of bytes, whatever the list's size, and a client that goes
 * away stops it (the page being read then is dropped). Each page is its own statement, never one long
 * transaction (PGlite has one connection); rows added meanwhile are newer than the pages read and never
 * shift them. A failure after the first line ends the stream early (the status is sent by then): a
 * whole export ends with a newline.
 */
export async function ndjsonExport<T>(
  c: Context<AppEnv>,
  cursor: string | undefined,
  page: (cursor: string | undefined, limit: number) => Promise<Page<T>>,
  line: (item: T) => unknown,
): Promise<Response> {
  const encoder = new TextEncoder();
  // One string per page, encoded once: a page is one chunk of the answer.
  const encoded = ({ items, nextCursor }: Page<T>): EncodedPage => {
    if (items.length === 0) return { bytes: undefined, nextCursor };
    let text = '';
    for (const item of items) text += `${JSON.stringify(line(item))}\n`;
    return { bytes: encoder.encode(text), nextCursor };
  };
  /** The page after `next`, being read; its failure is seen when it is awaited, or by no one if the client has gone. */
  const readAhead = (next: string | null) => {
    if (next === null) return undefined;
    const read = page(next, EXPORT_PAGE_SIZE).then(encoded);
    read.catch(() => {});
    return read;
  };
  // The first page before the answer: a refusal (a cursor this list did not give) is still a 4xx envelope.
  const first = encoded(await page(cursor, EXPORT_PAGE_SIZE));
  let ahead = readAhead(first.nextCursor);
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        if (first.bytes) controller.enqueue(first.bytes);
        if (!ahead) controller.close();
      },
      async pull(controller) {
        const read = await ahead!;
        if (cancelled) return;
        ahead = readAhead(read.nextCursor);
        if (read.bytes) controller.enqueue(read.bytes);
        if (!ahead) controller.close();
      },
      cancel() {
        cancelled = true;
      },
    },
    { highWaterMark: 0 },
  );
  return c.body(body, 200, { 'Content-Type': NDJSON, 'Cache-Control': 'no-store' });
}
