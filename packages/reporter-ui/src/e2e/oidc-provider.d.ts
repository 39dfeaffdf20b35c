/** The few parts of `oidc-provider` (no published types installed) that the browser tests use. */
declare module "oidc-provider" {
  import type { IncomingMessage, ServerResponse } from "node:http";

  /** An account as `findAccount` returns it. */
  interface TestAccount {
    accountId: string;
    claims(): Promise<Record<string, unknown>>;
  }

  /** The provider: a Koa application answering the OpenID Connect endpoints. */
  export default class Provider {
    constructor(
      issuer: string,
      configuration: {
        clients: Record<string, unknown>[];
        claims?: Record<string, string[]>;
        scopes?: string[];
        cookies?: { keys: string[] };
        ttl?: Record<string, number>;
        features?: Record<string, unknown>;
        pkce?: Record<string, unknown>;
        findAccount(ctx: unknown, id: string): Promise<TestAccount | undefined>;
      },
    );
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    on(event: string, listener: (...args: unknown[]) => void): this;
  }
}
