/**
 * Bearer-token authentication: every configured user gets a token (given or random) and the groups
 * kube-apiserver would add (`system:authenticated`; `system:serviceaccounts[:<ns>]` for service
 * accounts); service account tokens (JWTs signed by the sandbox) are checked against the store.
 * A request without a token is anonymous (`system:anonymous`, group `system:unauthenticated`).
 */
import { randomBytes } from "node:crypto";
import type { RequestUser } from "../admission/types.js";
import { effectiveGroups } from "./groups.js";
import type { ServiceAccountTokens, TokenCheck } from "./service-account-tokens.js";

/** A user the sandbox accepts; `token` defaults to a random one. */
export interface SandboxUser {
  username: string;
  groups?: string[];
  uid?: string;
  token?: string;
  /**
   * ClusterRoles bound to this user at start (one ClusterRoleBinding each, named
   * `sandbox:<role>:<username>`), e.g. `["cluster-admin"]` or `["view"]`.
   */
  clusterRoles?: string[];
}

/** A configured user with its token and full group list. */
export interface AuthenticatedUser {
  token: string;
  user: RequestUser;
}

/** Who sent a request: a user, nobody (no credentials), or an invalid token (401). */
export type Authentication =
  | { kind: "user"; user: RequestUser }
  | { kind: "anonymous"; user: RequestUser }
  | { kind: "invalid" };

/** Maps `Authorization: Bearer …` headers to users. */
export interface Authenticator {
  /** Who sent the request with this `Authorization` header. */
  authenticate(authorization: string | undefined): Authentication;
  /** Checks a bare token as a TokenReview does (static tokens ignore `audiences`). */
  review(token: string, audiences?: readonly string[]): TokenCheck;
  /** Every configured user, in configuration order. */
  users(): AuthenticatedUser[];
}

/** The default user: a cluster admin named as kind and kubeadm name it. */
export const DEFAULT_ADMIN: SandboxUser = { username: "kubernetes-admin", groups: ["system:masters"] };

/** The user of requests without credentials. */
export const ANONYMOUS: RequestUser = { username: "system:anonymous", groups: ["system:unauthenticated"] };

/** Creates the authenticator; users without a token get a random one. */
export function createAuthenticator(
  users: readonly SandboxUser[],
  serviceAccounts?: ServiceAccountTokens,
): Authenticator {
  const configured: AuthenticatedUser[] = users.map((u) => {
    const user: RequestUser = { username: u.username, groups: effectiveGroups(u.username, u.groups ?? []) };
    if (u.uid !== undefined) user.uid = u.uid;
    return { token: u.token ?? randomBytes(24).toString("base64url"), user };
  });
  const byToken = new Map(configured.map((c) => [c.token, c.user]));
  const review = (token: string, audiences?: readonly string[]): TokenCheck => {
    const user = byToken.get(token);
    if (user !== undefined) return { ok: true, user, audiences: [...(audiences ?? [])] };
    const check = serviceAccounts?.authenticate(token, audiences);
    return check ?? { ok: false, error: "invalid bearer token" };
  };
  return {
    authenticate(authorization) {
      if (authorization === undefined || authorization.trim() === "")
        return { kind: "anonymous", user: ANONYMOUS };
      const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
      if (match === null) return { kind: "invalid" };
      const check = review(match[1] ?? "");
      return check.ok ? { kind: "user", user: check.user } : { kind: "invalid" };
    },
    review,
    users: () => configured,
  };
}
