import type { Context } from 'hono';
import type { Page } from '../domain/admin/pagination.js';
import type { AppEnv } from './app-env.js';

export const NDJSON = 'application/x-ndjson';

/** Rows read per statement of an export: one page at a time is all an export holds in memory. */
export const EXPORT_PAGE_SIZE = 500;

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

/**
 * Every item of a list, one JSON object per line, read page by page (keyset, `EXPORT_PAGE_SIZE` rows
 * a statement, from `cursor` on) as the client reads them: the next page is read only when the stream
 * asks for more, so the memory an export holds is about one page, whatever the list's size, and a client that
 * goes away stops it. Each page is its own statement, never one long transaction (PGlite has one
 * connection); rows added meanwhile are newer than the pages read and never shift them. A failure after
 * the first line ends the stream early (the status is sent by then): a whole export ends with a newline.
 */
export async function ndjsonExport<T>(
  c: Context<AppEnv>,
  cursor: string | undefined,
  page: (cursor: string | undefined, limit: number) => Promise<Page<T>>,
  line: (item: T) => unknown,
): Promise<Response> {
  const encoder = new TextEncoder();
  const lines = ({ items }: Page<T>) => encoder.encode(items.map((item) => `${JSON.stringify(line(item))}\n`).join(''));
  // The first page before the answer: a refusal (a cursor this list did not give) is still a 4xx envelope.
  const first = await page(cursor, EXPORT_PAGE_SIZE);
  let next = first.nextCursor;
  const body = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        if (first.items.length) controller.enqueue(lines(first));
        if (next === null) controller.close();
      },
      async pull(controller) {
        const read = await page(next!, EXPORT_PAGE_SIZE);
        next = read.nextCursor;
        if (read.items.length) controller.enqueue(lines(read));
        if (next === null) controller.close();
      },
    },
    { highWaterMark: 0 },
  );
  return c.body(body, 200, { 'Content-Type': NDJSON, 'Cache-Control': 'no-store' });
}
