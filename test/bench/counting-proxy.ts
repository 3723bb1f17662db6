// A TCP proxy in front of PostgreSQL that reads what each client connection sends (wire-capture.ts):
// statements and round trips are counted on the wire, whatever the driver and its settings.
import { connect, createServer, type Server } from 'node:net';
import { CostRecorder, FrontendReader } from './wire-capture.js';

export interface CountingProxy {
  /** `databaseUrl` with its host and port replaced by the proxy's. */
  url: string;
  recorder: CostRecorder;
  close(): Promise<void>;
}

export async function startCountingProxy(databaseUrl: string): Promise<CountingProxy> {
  const target = new URL(databaseUrl);
  const recorder = new CostRecorder();
  const server: Server = createServer((client) => {
    const reader = new FrontendReader(recorder, true, true);
    const upstream = connect(Number(target.port || 5432), target.hostname);
    client.on('data', (chunk) => {
      reader.push(chunk);
      upstream.write(chunk);
    });
    upstream.pipe(client);
    const closeBoth = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', closeBoth).on('close', closeBoth);
    upstream.on('error', closeBoth).on('close', closeBoth);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('the proxy has no port');
  const url = new URL(databaseUrl);
  url.hostname = '127.0.0.1';
  url.port = String(address.port);
  return { url: url.toString(), recorder, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
