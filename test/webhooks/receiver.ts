import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

interface ReceivedMessage {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** How the receiver answers the nth message (0-based): a status, or `hang` (never answers). */
export type Answer = number | 'hang' | ((n: number, res: ServerResponse) => void);

/** A real HTTP receiver on 127.0.0.1, as an operator's own service would be: it records every message. */
export async function startReceiver(answer: (n: number) => Answer = () => 200) {
  const received: ReceivedMessage[] = [];
  const hanging: ServerResponse[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const n = received.length;
      received.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const a = answer(n);
      if (a === 'hang') hanging.push(res);
      else if (typeof a === 'function') a(n, res);
      else res.writeHead(a, { 'content-type': 'text/plain' }).end(a < 300 ? 'ok' : 'nope');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    port,
    received,
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
