/**
 * A real OpenID provider for the browser tests: `oidc-provider` on 127.0.0.1 with one in-memory
 * confidential client and test users (email, name, groups), signing in through its development
 * login form (any password). The port is taken first so the reporter can be configured with the
 * issuer before the client (whose redirect URI needs the reporter's port) is registered.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import Provider from "oidc-provider";

/** A test user: the login name is the account id. */
export interface TestUser {
  name: string;
  email: string;
  groups: string[];
}

/** A provider listening on 127.0.0.1. */
export interface TestProvider {
  /** The issuer (also the discovery URL's base). */
  readonly issuer: string;
  /** Registers the client and starts answering. */
  start(client: { clientId: string; clientSecret: string; redirectUri: string }): void;
  close(): Promise<void>;
}

/** Listens on a free port; nothing is answered until `start`. */
export async function listenTestProvider(users: Readonly<Record<string, TestUser>>): Promise<TestProvider> {
  const server: Server = createServer((_req, res) => res.writeHead(503).end("not started"));
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const { port } = server.address() as AddressInfo;
  const issuer = `http://127.0.0.1:${port}`;
  return {
    issuer,
    start(client) {
      const provider = new Provider(issuer, {
        clients: [
          {
            client_id: client.clientId,
            client_secret: client.clientSecret,
            redirect_uris: [client.redirectUri],
            grant_types: ["authorization_code"],
            response_types: ["code"],
            token_endpoint_auth_method: "client_secret_basic",
          },
        ],
        scopes: ["openid", "profile", "email", "groups"],
        claims: {
          openid: ["sub"],
          profile: ["name"],
          email: ["email", "email_verified"],
          groups: ["groups"],
        },
        cookies: { keys: ["browser-test-cookie-key"] },
        ttl: { Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600, IdToken: 600 },
        features: { devInteractions: { enabled: true } },
        async findAccount(_ctx, id) {
          const user = users[id];
          if (!user) return undefined;
          return {
            accountId: id,
            claims: async () => ({
              sub: id,
              name: user.name,
              email: user.email,
              email_verified: true,
              groups: user.groups,
            }),
          };
        },
      });
      server.removeAllListeners("request");
      server.on("request", provider.callback());
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((ok) => server.close(() => ok()));
    },
  };
}
