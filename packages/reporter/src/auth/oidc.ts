/**
 * OpenID Connect login with `openid-client`: discovery (once, retried after a failure), the
 * authorization code flow with PKCE (S256), state and nonce, and the user's claims from the ID
 * token merged with the UserInfo response. Groups come from the configured group claim.
 */
import * as client from "openid-client";
import type { OpenIdConnectConfig } from "./config.js";
import type { SessionUser } from "./session.js";

/** What the browser carries between the redirect to the provider and the callback. */
export interface OidcTransaction {
  state: string;
  nonce: string;
  verifier: string;
  /** Where to go after the login: a hash route of the dashboard (`#/…`) or empty. */
  returnTo: string;
}

/** The login flow. */
export interface OidcLogin {
  /** The provider's authorization URL and the transaction to keep in a cookie. */
  start(returnTo: string): Promise<{ url: URL; transaction: OidcTransaction }>;
  /** Exchanges the code of the callback URL for tokens and returns the user. */
  finish(callback: URL, transaction: OidcTransaction): Promise<SessionUser>;
}

/** Whether `value` is an {@link OidcTransaction}. */
export function isOidcTransaction(value: unknown): value is OidcTransaction {
  if (typeof value !== "object" || value === null) return false;
  const t = value as Record<string, unknown>;
  return ["state", "nonce", "verifier", "returnTo"].every((k) => typeof t[k] === "string");
}

function stringClaim(claims: Record<string, unknown>, ...names: string[]): string {
  for (const name of names) {
    const v = claims[name];
    if (typeof v === "string" && v !== "") return v;
  }
  return "";
}

/** Reads a group claim: a list of strings, one string, or a dotted path (`realm_access.roles`). */
export function groupsOf(claims: Record<string, unknown>, claim: string): string[] {
  if (claim === "") return [];
  let value: unknown = claims[claim];
  if (value === undefined && claim.includes(".")) {
    value = claim.split(".").reduce<unknown>((node, key) => {
      return typeof node === "object" && node !== null ? (node as Record<string, unknown>)[key] : undefined;
    }, claims);
  }
  if (typeof value === "string") return value === "" ? [] : [value];
  if (Array.isArray(value)) return value.filter((g): g is string => typeof g === "string");
  return [];
}

/** The session user of a set of claims. */
export function userFromClaims(claims: Record<string, unknown>, groupClaim: string): SessionUser {
  const sub = stringClaim(claims, "sub");
  const email = stringClaim(claims, "email");
  return {
    sub,
    email,
    name: stringClaim(claims, "name", "preferred_username") || email || sub,
    groups: groupsOf(claims, groupClaim),
    method: "oidc",
  };
}

/** Creates the login flow; the provider is contacted on the first login. */
export function createOidcLogin(config: OpenIdConnectConfig): OidcLogin {
  const scopes = [...new Set(["openid", ...(config.scopes.length ? config.scopes : ["profile", "email"])])];
  const server = new URL(config.discoveryUrl);
  const insecure = server.protocol === "http:";
  let discovered: Promise<client.Configuration> | undefined;
  const configuration = (): Promise<client.Configuration> => {
    discovered ??= client
      .discovery(
        server,
        config.clientId,
        config.clientSecret,
        config.clientSecret ? client.ClientSecretBasic(config.clientSecret) : client.None(),
        insecure ? { execute: [client.allowInsecureRequests] } : {},
      )
      .catch((error: unknown) => {
        discovered = undefined;
        throw error;
      });
    return discovered;
  };
  return {
    async start(returnTo) {
      const oidc = await configuration();
      const transaction: OidcTransaction = {
        state: client.randomState(),
        nonce: client.randomNonce(),
        verifier: client.randomPKCECodeVerifier(),
        returnTo,
      };
      const url = client.buildAuthorizationUrl(oidc, {
        redirect_uri: config.callbackUrl,
        scope: scopes.join(" "),
        code_challenge: await client.calculatePKCECodeChallenge(transaction.verifier),
        code_challenge_method: "S256",
        state: transaction.state,
        nonce: transaction.nonce,
      });
      return { url, transaction };
    },
    async finish(callback, transaction) {
      const oidc = await configuration();
      const tokens = await client.authorizationCodeGrant(oidc, callback, {
        pkceCodeVerifier: transaction.verifier,
        expectedState: transaction.state,
        expectedNonce: transaction.nonce,
        idTokenExpected: true,
      });
      const idClaims: Record<string, unknown> = { ...tokens.claims() };
      const sub = stringClaim(idClaims, "sub");
      const info = await client.fetchUserInfo(oidc, tokens.access_token, sub);
      return userFromClaims({ ...idClaims, ...info }, config.groupClaim);
    },
  };
}
