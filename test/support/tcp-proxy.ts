import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy in front of a database, for outage tests: it forwards, refuses connections (nothing
 * listens), drops them (accepts and closes), or stalls (keeps every connection open and forwards
 * nothing, as a stopped server would). The shared database itself is never touched.
 */
export interface TcpProxy {
  port: number;
  /** How many connections it has accepted (in any mode). */
  readonly connections: number;
  /** How many of them are open now. */
  readonly open: number;
  /** `postgres://…` with its host and port replaced by the proxy's. */
  urlFor(databaseUrl: string): string;
  forward(): Promise<void>;
  refuse(): Promise<void>;
  drop(): void;
  stall(): void;
  close(): Promise<void>;
}

type Mode = 'forward' | 'refuse' | 'drop' | 'stall';

export async function startTcpProxy(target: { host: string; port: number }, port = 0): Promise<TcpProxy> {
  let mode: Mode = 'forward';
  const pairs = new Set<[Socket, Socket]>();
  // Bytes read while stalled, in order, delivered when forwarding resumes.
  let held: [Socket, Buffer][] = [];
  const relay = (to: Socket) => (chunk: Buffer) => {
    if (mode === 'stall') held.push([to, chunk]);
    else to.write(chunk);
  };
  let connections = 0;
  const server: Server = createServer((client) => {
    connections += 1;
    if (mode === 'drop') return void client.destroy();
    const upstream = connect(target.port, target.host);
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    client.on('data', relay(upstream));
    upstream.on('data', relay(client));
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  const destroyAll = () => {
    for (const [a, b] of pairs) {
      a.destroy();
      b.destroy();
    }
    pairs.clear();
    held = [];
  };
  const listen = (at: number) =>
    new Promise<void>((resolve, reject) => server.once('error', reject).listen(at, '127.0.0.1', () => resolve()));
  await listen(port);
  const boundPort = (server.address() as AddressInfo).port;
  return {
    port: boundPort,
    get connections() {
      return connections;
    },
    get open() {
      return pairs.size;
    },
    urlFor(databaseUrl) {
      const url = new URL(databaseUrl);
      url.hostname = '127.0.0.1';
      url.port = String(boundPort);
      return url.toString();
    },
    async forward() {
      if (mode === 'refuse') await listen(boundPort);
      mode = 'forward';
      for (const [to, chunk] of held) if (!to.destroyed) to.write(chunk);
      held = [];
    },
    async refuse() {
      mode = 'refuse';
      destroyAll();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
    drop() {
      mode = 'drop';
      destroyAll();
    },
    stall() {
      mode = 'stall';
    },
    async close() {
      destroyAll();
      if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A proxy in front of the PostgreSQL server a `postgres://` URL names (its host, and its port or 5432). */
export function startTcpProxyFor(databaseUrl: string): Promise<TcpProxy> {
  const target = new URL(databaseUrl);
  return startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
}
