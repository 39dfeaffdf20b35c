/**
 * Impersonation (`Impersonate-User`, `Impersonate-Group`, `Impersonate-Uid`, `Impersonate-Extra-*`;
 * `kubectl --as/--as-group`): each requested identity needs the `impersonate` verb on `users`,
 * `serviceaccounts`, `groups`, `uids.authentication.k8s.io` or `userextras/<key>`, as kube-apiserver's
 * impersonation filter checks; the request then runs as the impersonated user.
 */
import type { IncomingHttpHeaders } from "node:http";
import type { RequestUser } from "../admission/types.js";
import { forbiddenRequest, internalError } from "../http/status.js";
import type { Decision } from "../rbac/authorizer.js";
import type { ResourceAttributes } from "../rbac/rules.js";

const SERVICE_ACCOUNT = /^system:serviceaccount:([^:]+):([^:]+)$/;
const EXTRA_PREFIX = "impersonate-extra-";

/** The headers of a request, each as the list of its values (`IncomingMessage.headersDistinct`). */
export type DistinctHeaders = Record<string, string[] | undefined>;

/** Whether a request asks for impersonation at all. */
export function wantsImpersonation(headers: IncomingHttpHeaders): boolean {
  return Object.keys(headers).some((h) => h.startsWith("impersonate-"));
}

function check(
  user: RequestUser,
  attributes: Omit<ResourceAttributes, "kind" | "verb" | "version">,
  authorize: (user: RequestUser, attributes: ResourceAttributes) => Decision,
): void {
  const full: ResourceAttributes = { kind: "resource", verb: "impersonate", version: "", ...attributes };
  const decision = authorize(user, full);
  if (!decision.allowed) throw forbiddenRequest(user.username, full, decision.reason);
}

/** The user a request acts as; throws the 403 of the first identity the requester may not take. */
export function impersonate(
  user: RequestUser,
  headers: DistinctHeaders,
  authorize: (user: RequestUser, attributes: ResourceAttributes) => Decision,
): RequestUser {
  const username = headers["impersonate-user"]?.[0] ?? "";
  const groups = headers["impersonate-group"] ?? [];
  const uid = headers["impersonate-uid"]?.[0] ?? "";
  const extra: Record<string, string[]> = {};
  for (const [name, values] of Object.entries(headers))
    if (name.startsWith(EXTRA_PREFIX) && values !== undefined)
      extra[decodeURIComponent(name.slice(EXTRA_PREFIX.length))] = values;
  if (username === "")
    throw internalError(`requested ${JSON.stringify({ groups, uid, extra })} without impersonating a user`);
  const sa = SERVICE_ACCOUNT.exec(username);
  if (sa !== null)
    check(
      user,
      { group: "", resource: "serviceaccounts", subresource: "", namespace: sa[1] ?? "", name: sa[2] ?? "" },
      authorize,
    );
  else
    check(user, { group: "", resource: "users", subresource: "", namespace: "", name: username }, authorize);
  for (const group of groups)
    check(user, { group: "", resource: "groups", subresource: "", namespace: "", name: group }, authorize);
  if (uid !== "")
    check(
      user,
      { group: "authentication.k8s.io", resource: "uids", subresource: "", namespace: "", name: uid },
      authorize,
    );
  for (const [key, values] of Object.entries(extra))
    for (const value of values)
      check(
        user,
        {
          group: "authentication.k8s.io",
          resource: "userextras",
          subresource: key,
          namespace: "",
          name: value,
        },
        authorize,
      );
  const acting = [...groups];
  if (sa !== null && groups.length === 0)
    acting.push("system:serviceaccounts", `system:serviceaccounts:${sa[1] ?? ""}`);
  if (
    username !== "system:anonymous" &&
    !acting.includes("system:authenticated") &&
    !acting.includes("system:unauthenticated")
  )
    acting.push("system:authenticated");
  const result: RequestUser = { username, groups: acting };
  if (uid !== "") result.uid = uid;
  if (Object.keys(extra).length > 0) result.extra = extra;
  return result;
}
