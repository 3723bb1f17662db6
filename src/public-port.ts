import type { Duplex } from 'node:stream';
import { serve, type ServerType } from '@hono/node-server';
import type { Config } from './config.js';
import { answerClientError } from './http/client-error-answer.js';
import type { Router } from './http/router.js';
import type { Logger } from './logger.js';

/** Idle keep-alive connections close after this: sooner than a slow client's request timeout. */
const KEEP_ALIVE_TIMEOUT_MS = 5000;

/** A start-up failure that is one line as it is (port in use, ...). */
export class StartupError extends Error {}

type Fetch = Router['fetch'];

/**
 * The service's public port (HOST, PORT): opened first, answering with the app it is handed (the app
 * while starting, then the whole app). Once draining, every answer closes its connection, so that
 * keep-alive clients stop reusing it before the idle ones are closed (a request racing that close would be
 * reset). `close` stops accepting and resolves when the accepted requests are answered.
 */
export interface PublicPort {
  /** From now on, requests are answered by `fetch`. */
  answerWith(fetch: Fetch): void;
  /** Every answer from now on carries `Connection: close`. */
  drain(): void;
  readonly draining: boolean;
  /** Where it listens (for the log line: the port chosen when PORT=0). */
  readonly address: { address: string; port: number } | Record<string, never>;
  /** Stops accepting; resolves once every accepted request is answered. The same promise each call. */
  close(): Promise<void>;
}

/**
 * Opens the port, or fails with one line. Slow clients are cut: request headers and body must arrive
 * within REQUEST_TIMEOUT_SECONDS, checked every second (answered 408 `request_timeout` and closed by
 * answerClientError).
 */
export async function openPublicPort(first: Fetch, config: Config, logger: Logger): Promise<PublicPort> {
  let handler = first;
  let draining = false;
  const fetch: Fetch = async (request, env, ctx) => {
    const response = await handler(request, env, ctx);
    if (draining) response.headers.set('Connection', 'close');
    return response;
  };
  const server = await listen(fetch, config);
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => answerClientError(err, socket, logger));
  let closed: Promise<void> | undefined;
  const bound = server.address();
  return {
    address: typeof bound === 'object' && bound ? { address: bound.address, port: bound.port } : {},
    answerWith(next) {
      handler = next;
    },
    drain() {
      draining = true;
    },
    get draining() {
      return draining;
    },
    close() {
      closed ??= new Promise((resolve) => {
        server.close(() => resolve());
        if ('closeIdleConnections' in server) server.closeIdleConnections();
      });
      return closed;
    },
  };
}

function listen(fetch: Fetch, config: Config): Promise<ServerType> {
  const timeoutMs = config.requestTimeoutSeconds * 1000;
  return new Promise((resolve, reject) => {
    const server = serve(
      {
        fetch,
        port: config.port,
        hostname: config.host,
        serverOptions: {
          requestTimeout: timeoutMs,
          headersTimeout: timeoutMs,
          keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
          connectionsCheckingInterval: 1000,
        },
      },
      () => resolve(server),
    );
    server.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EADDRINUSE') reject(new StartupError(`port ${config.port} is already in use`));
      else reject(new StartupError(`cannot listen on ${config.host}:${config.port} (${err.code ?? err.message})`));
    });
  });
}

/** A listener of its own beside the public port (metrics, the console): started at once, closed on stop. */
export function openSidePort(
  name: 'metrics' | 'console',
  fetch: Parameters<typeof serve>[0]['fetch'],
  where: { port: number; host: string },
  logger: Logger,
): () => void {
  const server = serve({ fetch, port: where.port, hostname: where.host }, (info) => {
    logger.info(`${name} listening`, { address: info.address, port: info.port });
  });
  return () => {
    server.close();
  };
}
