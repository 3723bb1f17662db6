/**
 * The loopback OpenID provider of workload-issuers.ts as a process of its own, for the shell client's bats suite
 * (clients/shell/test/identity.bats): prints one JSON line `{"issuer", "mint"}` and serves, beside the provider,
 * `POST {mint}` with `{"sub", "claims"?, "audience"?}` answering a freshly minted ID token as text. It runs until
 * it is sent SIGTERM. Loopback only.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startProviderIssuer } from './workload-issuers.js';

const issuer = await startProviderIssuer();
const minter = createServer((req, res) => {
  let body = '';
  req.on('data', (chunk) => (body += chunk));
  req.on('end', () => {
    const { sub, claims, audience } = JSON.parse(body || '{}') as {
      sub: string;
      claims?: Record<string, string>;
      audience?: string;
    };
    issuer.mint(sub, claims, audience).then(
      (token) => res.writeHead(200, { 'content-type': 'text/plain' }).end(token),
      (error: unknown) => res.writeHead(500).end(String(error)),
    );
  });
});
await new Promise<void>((resolve) => minter.listen(0, '127.0.0.1', resolve));
const mint = `http://127.0.0.1:${(minter.address() as AddressInfo).port}/mint`;
console.log(JSON.stringify({ issuer: issuer.issuer, mint }));
process.on('SIGTERM', () => {
  minter.close();
  void issuer.close().then(() => process.exit(0));
});
