// The shared NDJSON export (src/http/ndjson-export.ts) over a list of numbered items whose page reads are
// counted: how far it reads ahead of its client, that a client going away stops it, and that a failure
// after the first line ends the answer early, through the app and over a real socket (@hono/node-server).
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import type { Page } from '../../src/domain/admin-lists/pagination.js';
import type { AppEnv } from '../../src/http/app-env.js';
import { ndjsonExport } from '../../src/http/ndjson-export.js';

const PAGE = 500;
const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

/**
 * `size` items `{n}`, read a page at a time (the cursor is the next n); the read numbered `failAt` fails, and
 * the item numbered `unwritableAt` cannot be made into its line.
 */
function countedList(size: number, failAt?: number, unwritableAt?: number) {
  let reads = 0;
  const page = async (cursor: string | undefined, limit: number): Promise<Page<{ n: number }>> => {
    reads += 1;
    await settle();
    if (reads === failAt) throw new Error('the database went away');
    const from = cursor === undefined ? 0 : Number(cursor);
    const items = Array.from({ length: Math.max(0, Math.min(limit, size - from)) }, (_, i) => ({ n: from + i }));
    return { items, nextCursor: from + limit < size ? String(from + limit) : null };
  };
  const app = new Hono<AppEnv>();
  const line = (item: { n: number }) => {
    if (item.n === unwritableAt) throw new Error('this item has no line');
    return item;
  };
  app.get('/export', (c) => ndjsonExport(c, undefined, page, line));
  return { app, reads: () => reads };
}

const decoder = new TextDecoder();

/** Reads the whole export, or up to its failure, pausing (300 ms) before the read numbered `pauseAt` (from 0). */
async function readToEnd(app: Hono<AppEnv>, pauseAt?: number): Promise<{ text: string; failure: Error | undefined }> {
  const reader = (await app.request('/export')).body!.getReader();
  let text = '';
  try {
    for (let taken = 0; ; taken++) {
      if (taken === pauseAt) for (let i = 0; i < 6; i++) await settle();
      const read = await reader.read();
      if (read.done) return { text, failure: undefined };
      text += decoder.decode(read.value);
    }
  } catch (error) {
    return { text, failure: error as Error };
  }
}

describe('the NDJSON export stream', () => {
  const servers: Server[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
  const listen = async (app: Hono<AppEnv>) => {
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as Server;
    servers.push(server);
    if (!server.listening) await new Promise((resolve) => server.once('listening', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };

  it('reads two pages ahead of its client and no further, and every item once in order', async () => {
    const list = countedList(5 * PAGE + 7);
    const reader = (await list.app.request('/export')).body!.getReader();
    const lines: string[] = [];
    for (let taken = 1; ; taken++) {
      const read = await reader.read();
      if (read.done) break;
      lines.push(...decoder.decode(read.value).split('\n').slice(0, -1));
      await settle();
      await settle();
      // The pages given, and the two read (or being read) for the next reads of the client (none after the last).
      expect({ taken, reads: list.reads() }).toEqual({ taken, reads: Math.min(taken + 2, 6) });
    }
    expect(lines.map((line) => JSON.parse(line).n)).toEqual(Array.from({ length: 5 * PAGE + 7 }, (_, i) => i));
  });

  it('a client that goes away stops the export', async () => {
    const list = countedList(20 * PAGE);
    const reader = (await list.app.request('/export')).body!.getReader();
    await reader.read();
    await reader.read();
    await reader.cancel();
    await settle();
    await settle();
    // The two pages taken, and the one being read when the client went away: none after.
    expect(list.reads()).toBe(3);
  });

  it('a client that closes its connection stops the export (over HTTP)', async () => {
    const list = countedList(2000 * PAGE);
    const origin = await listen(list.app);
    const aborting = new AbortController();
    const res = await fetch(`${origin}/export`, { signal: aborting.signal });
    const reader = res.body!.getReader();
    await reader.read();
    aborting.abort();
    await settle();
    const after = list.reads();
    for (let i = 0; i < 4; i++) await settle();
    // Far fewer than the 2,000 pages of the list, and none after the connection closed.
    expect({ stopped: list.reads() === after, few: after < 100 }).toEqual({ stopped: true, few: true });
  });

  it('a failure after the first line ends the answer early, never as a whole export', async () => {
    const { text, failure } = await readToEnd(countedList(10 * PAGE, 3).app);
    expect({ failed: failure instanceof Error, lines: text.split('\n').length - 1 }).toEqual({
      failed: true,
      lines: 2 * PAGE,
    });
  });

  it('a line that cannot be made after the first page ends the answer early, after the pages before it', async () => {
    const { text, failure } = await readToEnd(countedList(10 * PAGE, undefined, 3 * PAGE + 5).app);
    expect({ failure: failure?.message, lines: text.split('\n').length - 1 }).toEqual({
      failure: 'this item has no line',
      lines: 3 * PAGE,
    });
  });

  it('a failed read after pages read ahead of a paused client: those pages first, then the failure', async () => {
    const { text, failure } = await readToEnd(countedList(10 * PAGE, 4).app, 1);
    expect({ failure: failure?.message, lines: text.split('\n').length - 1 }).toEqual({
      failure: 'the database went away',
      lines: 3 * PAGE,
    });
  });

  it('a line that cannot be made while the client pauses loses no page: the pages before it, then the failure', async () => {
    // After three pages the client pauses: the fourth page fails meanwhile, and the fifth was being read.
    const { text, failure } = await readToEnd(countedList(10 * PAGE, undefined, 3 * PAGE + 5).app, 3);
    const numbers = text
      .split('\n')
      .slice(0, -1)
      .map((line) => JSON.parse(line).n);
    expect({ failure: failure?.message, numbers }).toEqual({
      failure: 'this item has no line',
      numbers: Array.from({ length: 3 * PAGE }, (_, i) => i),
    });
  });

  it('a failure after the first line cuts the answer over HTTP: the client sees no end of the body', async () => {
    const list = countedList(10 * PAGE, 3);
    const res = await fetch(`${await listen(list.app)}/export`);
    expect(res.status).toBe(200);
    const failure = await res.text().then(
      () => undefined,
      (error: Error) => error,
    );
    expect(failure).toBeInstanceOf(Error);
  });
});
