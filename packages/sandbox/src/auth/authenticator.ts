/**
 * Bearer-token authentication: every configured user gets a token (given or random) and the groups
 * kube-apiserver would add (`system:authenticated`; `system:serviceaccounts[:<ns>]` for service accounts).
 */
import { randomBytes } from "node:crypto";
import type { RequestUser } from "../admission/types.js";

/** A user the sandbox accepts; `token` defaults to a random one. */
export interface SandboxUser {
  username: string;
  groups?: string[];
  uid?: string;
  token?: string;
}

/** A configured user with its token and full group list. */
export interface AuthenticatedUser {
  token: string;
  user: RequestUser;
}

/** Maps `Authorization: Bearer …` headers to users. */
export interface Authenticator {
  /** The user of a request, or `undefined` (401) when the token is missing or unknown. */
  authenticate(authorization: string | undefined): RequestUser | undefined;
  /** Every configured user, in configuration order. */
  users(): AuthenticatedUser[];
}

/** The default user: a cluster admin, as kind/minikube kubeconfigs give. */
export const DEFAULT_ADMIN: SandboxUser = { username: "admin", groups: ["system:masters"] };

const SERVICE_ACCOUNT = /^system:serviceaccount:([^:]+):([^:]+)$/;

/** The groups kube-apiserver assigns to a user on top of the configured ones. */
export function effectiveGroups(username: string, groups: readonly string[]): string[] {
  const out = [...groups];
  const sa = SERVICE_ACCOUNT.exec(username);
  if (sa !== null) out.push("system:serviceaccounts", `system:serviceaccounts:${sa[1]}`);
  out.push("system:authenticated");
  return [...new Set(out)];
}

/** Creates the authenticator; users without a token get a random one. */
export function createAuthenticator(users: readonly SandboxUser[]): Authenticator {
  const configured: AuthenticatedUser[] = users.map((u) => {
    const user: RequestUser = { username: u.username, groups: effectiveGroups(u.username, u.groups ?? []) };
    if (u.uid !== undefined) user.uid = u.uid;
    return { token: u.token ?? randomBytes(24).toString("base64url"), user };
  });
  const byToken = new Map(configured.map((c) => [c.token, c.user]));
  return {
    authenticate(authorization) {
      const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "");
      return match === null ? undefined : byToken.get(match[1] ?? "");
    },
    users: () => configured,
  };
}
