// Which host of DATABASE_URL the service writes to (DESIGN §20). One host: that host, as always. Several
// (a primary and its standbys, as `pg_autoctl show uri` lists them): the first that accepts writes, found
// again when it is lost. node-postgres takes one host; the pool opens each connection on the host found
// here, and drops the connections of a host that was lost (`generation`).
import type pg from 'pg';
import { type DatabaseUrl, describeDatabaseUrl, hostUrl, refusedTls } from './database-url.js';

/** One round trip that says whether a session may write: not a standby, not read-only (pg_auto_failover's wait). */
const WRITABLE_SQL = `select pg_is_in_recovery() as standby, current_setting('transaction_read_only') as read_only`;

export interface WritableHost {
  /** The single-host URL of the host in use; undefined while no host of the list accepts writes. */
  readonly url: string | undefined;
  /** Bumped when the host in use is lost: connections opened before are dropped, not reused. */
  readonly generation: number;
  /** The host in use still accepts writes, or (several hosts) the next call looks for one across the list. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface WritableHostOptions {
  /** A connection to one host, not yet connected (the pool's own kind: same limits, same timeouts). */
  open: (url: string) => pg.Client;
  /** How long one host may take to connect and answer. */
  timeoutMs: number;
  /** Told when the host that accepts writes changes (not when the first one is found). */
  onPrimaryChange?: ((change: { from: string; to: string }) => void) | undefined;
}

const notWritable = (host: string) =>
  Object.assign(new Error(`the database at ${host} does not accept writes`), { code: '25006' });

/**
 * The probe's own give-up, with the code of a connection not made in time (database-errors.ts). Given up
 * only after the event loop has read what arrived: a process busy past `ms` (a fresh instance taking its
 * first burst of requests) finds its timer and the database's answer due at once, and timers run before
 * sockets are read; the answer then counts (setImmediate runs after them), and the database is not taken
 * for gone because this process was slow (test/outage/busy-process.test.ts).
 */
function withTimeout<T>(work: Promise<T>, ms: number, onTimeout: () => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let settled = false;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        setImmediate(() => {
          if (settled) return;
          onTimeout();
          reject(Object.assign(new Error('database probe timed out'), { code: 'CONNECT_TIMEOUT' }));
        }),
      ms,
    );
  });
  return Promise.race([work, expired]).finally(() => {
    settled = true;
    clearTimeout(timer);
  });
}

export function findWritableHost(url: DatabaseUrl, options: WritableHostOptions): WritableHost {
  const several = url.hosts.length > 1;
  const needsWrites = url.targetSessionAttrs !== 'primary';
  // Under sslmode=prefer, a host that refused TLS once is reached in plain from then on (libpq's fallback).
  const plain = new Set<number>();
  const urlOf = (index: number) => hostUrl(url, url.hosts[index]!, { plain: plain.has(index) });
  const label = (index: number) => describeDatabaseUrl({ ...url, hosts: [url.hosts[index]!], path: '' });

  let current: number | undefined = several ? undefined : 0;
  let lastPrimary: number | undefined;
  let generation = 0;
  let probe: pg.Client | undefined;
  let closed = false;

  const forgetProbe = () => {
    void probe?.end().catch(() => {});
    probe = undefined;
  };
  /** The connection that answered is kept for the next probe, until the server closes it. */
  const keep = (client: pg.Client) => {
    if (closed) return void client.end().catch(() => {});
    if (probe === client) return;
    probe = client;
    client.on('end', () => {
      if (probe === client) probe = undefined;
    });
  };
  /** Connects (or reuses `client`), asks whether it may write; resolves with the open connection. */
  const ask = async (index: number, client?: pg.Client): Promise<pg.Client> => {
    let opened = client;
    try {
      return await withTimeout(
        (async () => {
          if (!opened) {
            opened = options.open(urlOf(index));
            opened.on('error', () => {});
            await opened.connect();
          }
          const { rows } = await opened.query<{ standby: boolean; read_only: string }>(WRITABLE_SQL);
          const row = rows[0];
          if (!row || row.standby || (needsWrites && row.read_only === 'on')) throw notWritable(label(index));
          return opened;
        })(),
        options.timeoutMs,
        () => void opened?.end().catch(() => {}),
      );
    } catch (error) {
      void opened?.end().catch(() => {});
      if (url.sslmode === 'prefer' && !plain.has(index) && refusedTls(error)) {
        plain.add(index);
        return ask(index);
      }
      throw error;
    }
  };

  const search = async (): Promise<void> => {
    // All hosts at once: a dead host's connect timeout does not delay finding the live one.
    const answers = await Promise.allSettled(url.hosts.map((_, index) => ask(index)));
    const found = answers.findIndex((a) => a.status === 'fulfilled');
    answers.forEach((a, index) => {
      if (a.status === 'fulfilled' && (index !== found || closed)) void a.value.end().catch(() => {});
    });
    if (found < 0 || closed) {
      const refused = answers.find((a): a is PromiseRejectedResult => a.status === 'rejected');
      throw several
        ? Object.assign(new Error(`no host of ${describeDatabaseUrl(url)} accepts writes`), {
            code: '25006',
            cause: refused?.reason,
          })
        : refused?.reason;
    }
    keep((answers[found] as PromiseFulfilledResult<pg.Client>).value);
    current = found;
    if (lastPrimary !== undefined && lastPrimary !== found)
      options.onPrimaryChange?.({ from: label(lastPrimary), to: label(found) });
    lastPrimary = found;
  };

  const ping = async (): Promise<void> => {
    if (current === undefined) return search();
    try {
      keep(await ask(current, probe));
    } catch (error) {
      forgetProbe();
      // The host is lost: its connections go, and the next probe (availability.ts retries) looks across the list.
      if (several) {
        current = undefined;
        generation++;
      }
      throw error;
    }
  };

  return {
    get url() {
      return current === undefined ? undefined : urlOf(current);
    },
    get generation() {
      return generation;
    },
    ping,
    async close() {
      closed = true;
      await probe?.end().catch(() => {});
    },
  };
}
