// The few parts of oidc-provider (which ships no types) that test/support/oidc-provider.ts and
// test/support/workload-issuers.ts use.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  interface Account {
    accountId: string;
    claims(): Record<string, unknown>;
  }

  interface IdToken {
    scope: string;
    set(claim: string, value: unknown): void;
    issue(options: { use: 'idtoken' }): Promise<string>;
  }

  export default class Provider {
    constructor(
      issuer: string,
      configuration: Record<string, unknown> & { findAccount?(ctx: unknown, id: string): Account | undefined },
    );
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    /** The provider's own models, used to mint an ID token for a client without a browser. */
    Client: { find(id: string): Promise<unknown> };
    IdToken: new (
      claims: Record<string, unknown>,
      options: { client: unknown },
    ) => IdToken;
  }
}
