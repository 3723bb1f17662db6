import type { Context } from 'hono';
import type { Page } from '../domain/admin-lists/pagination.js';
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

/**
 * Every item of a list, one JSON object per line, read page by page (keyset, `EXPORT_PAGE_SIZE` rows
 * a statement, from `cursor` on) as the client reads them. The next page is asked for as soon as the rows
 * of the one before are here (its cursor is their last row), before they are made into lines: the
 * database reads a page while this process turns the one before into bytes. No further than that: at
 * most two pages are read ahead of what the client has taken (two waiting, or one waiting and one being
 * read), so what an export holds is three pages of bytes with the one being written, whatever the list's
 * size; a client that goes away stops it (the page being read then is dropped). Each page is its own
 * statement, never one long transaction (PGlite has one connection); rows added meanwhile are newer than
 * the pages read and never shift them. A failure after the first line ends the stream early, after the
 * pages read before it (the status is sent by then): a whole export ends with a newline.
 */
export async function ndjsonExport<T>(
  c: Context<AppEnv>,
  cursor: string | undefined,
  page: (cursor: string | undefined, limit: number) => Promise<Page<T>>,
  line: (item: T) => unknown,
): Promise<Response> {
  const encoder = new TextEncoder();
  // One string per page, encoded once: a page is one chunk of the answer.
  const encoded = (items: T[]): Uint8Array | undefined => {
    if (items.length === 0) return undefined;
    let text = '';
    for (const item of items) text += `${JSON.stringify(line(item))}\n`;
    return encoder.encode(text);
  };
  // The first page before the answer: a refusal (a cursor this list did not give) is still a 4xx envelope.
  const { items, nextCursor } = await page(cursor, EXPORT_PAGE_SIZE);
  const rest = readAhead(nextCursor, page, encoded);
  let firstBytes: Uint8Array | undefined;
  try {
    firstBytes = encoded(items);
  } catch (error) {
    rest.stop();
    throw error;
  }
  const body = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        // Handed on, not held: the stream's functions share this scope for as long as the export runs.
        if (firstBytes) controller.enqueue(firstBytes);
        firstBytes = undefined;
        if (nextCursor === null) controller.close();
      },
      async pull(controller) {
        const bytes = await rest.take();
        if (bytes === undefined) controller.close();
        else controller.enqueue(bytes);
      },
      cancel() {
        rest.stop();
      },
    },
    { highWaterMark: 0 },
  );
  return c.body(body, 200, { 'Content-Type': NDJSON, 'Cache-Control': 'no-store' });
}

/** Pages read ahead of the client, at most this many (waiting for it, or being read). */
const PAGES_AHEAD = 2;

/** A page read and not yet taken by the client: its bytes once its lines are made (none for a page of no items). */
interface WaitingPage {
  made: boolean;
  bytes: Uint8Array | undefined;
}

/**
 * The pages after the first, from `next` on, each read as soon as the one before it is here and fewer than
 * `PAGES_AHEAD` are ahead of the client. `take` answers the next page's bytes, `undefined` after the last,
 * or throws the failure that stopped the reading once the pages read before it are taken.
 */
function readAhead<T>(
  next: string | null,
  page: (cursor: string | undefined, limit: number) => Promise<Page<T>>,
  encoded: (items: T[]) => Uint8Array | undefined,
) {
  const waiting: WaitingPage[] = [];
  let reading = false;
  let stopped = false;
  let failure: { error: unknown } | undefined;
  let wake: (() => void) | undefined;

  const read = (): void => {
    if (reading || stopped || failure || next === null || waiting.length >= PAGES_AHEAD) return;
    reading = true;
    page(next, EXPORT_PAGE_SIZE).then(
      (rows) => {
        reading = false;
        next = rows.nextCursor;
        if (stopped || failure) return;
        // Waiting from now: the read after it starts here, and its lines are made once that read's
        // statement is on its way (setImmediate comes after the driver's promise steps that send it).
        const waits: WaitingPage = { made: false, bytes: undefined };
        waiting.push(waits);
        read();
        setImmediate(() => {
          if (stopped) return;
          try {
            waits.bytes = encoded(rows.items);
          } catch (error) {
            // A line that cannot be made ends the answer as a failed read does, after the pages before
            // it (never the process).
            failure = { error };
            const at = waiting.indexOf(waits);
            if (at !== -1) waiting.splice(at);
          }
          waits.made = true;
          wake?.();
        });
      },
      (error: unknown) => {
        reading = false;
        failure = { error };
        wake?.();
      },
    );
  };
  read();

  return {
    async take(): Promise<Uint8Array | undefined> {
      for (;;) {
        const first = waiting[0];
        if (first?.made) {
          waiting.shift();
          read();
          if (first.bytes) return first.bytes;
          continue;
        }
        if (first === undefined) {
          if (failure) throw failure.error;
          if (next === null && !reading) return undefined;
        }
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        wake = undefined;
      }
    },
    stop(): void {
      stopped = true;
    },
  };
}
