import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

/**
 * A loopback proxy in front of a service that loses its first answer: the request goes through whole, and
 * when the service's first byte of answer arrives (written after its change committed), `onAnswer` runs
 * (a test kills the service there) and the client's connection is cut, the answer never forwarded. What a
 * client sees when the server dies or a proxy times out between COMMIT and the answer. Later connections
 * are forwarded both ways.
 */
export interface AnswerCuttingProxy {
  url: string;
  close(): Promise<void>;
}

export async function startAnswerCuttingProxy(
  target: { port: number },
  onAnswer: () => void,
): Promise<AnswerCuttingProxy> {
  let cut = false;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(target.port, '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket)).on('error', () => {});
    }
    client.on('data', (chunk) => upstream.write(chunk));
    upstream.on('data', (chunk) => {
      if (!cut) {
        cut = true;
        onAnswer();
        client.destroy();
        upstream.destroy();
        return;
      }
      client.write(chunk);
    });
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
