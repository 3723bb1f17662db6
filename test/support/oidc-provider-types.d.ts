// The few parts of oidc-provider (which ships no types) that test/support/oidc-provider.ts uses.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  interface Account {
    accountId: string;
    claims(): Record<string, unknown>;
  }

  export default class Provider {
    constructor(
      issuer: string,
      configuration: Record<string, unknown> & { findAccount(ctx: unknown, id: string): Account | undefined },
    );
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
  }
}
