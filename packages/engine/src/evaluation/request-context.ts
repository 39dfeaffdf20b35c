import type { JsonValue, KubeObject } from "@kyverno-ts/api";
import type { EngineRequest } from "../engine-types.js";
import { extractImages } from "../images/images.js";
import type { JsonContext } from "./json-context.js";

const SERVICE_ACCOUNT_PREFIX = "system:serviceaccount:";

function asJson(obj: KubeObject | undefined): JsonValue {
  return (obj ?? null) as JsonValue;
}

/**
 * Builds the base JSON context of a request: `request.*` as the AdmissionRequest, the service account
 * variables and `images`. Context entries and values are layered on top per rule.
 */
export function requestContext(
  req: EngineRequest,
  kind: { group: string; version: string; kind: string },
  withImages: boolean,
): JsonContext {
  const operation = req.operation ?? "CREATE";
  const object = operation === "DELETE" ? null : asJson(req.resource);
  const oldObject =
    operation === "CREATE"
      ? null
      : asJson(req.oldResource ?? (operation === "DELETE" ? req.resource : undefined));
  const subject = operation === "DELETE" ? (req.oldResource ?? req.resource) : req.resource;
  const userInfo: { [key: string]: JsonValue } = {};
  if (req.userInfo?.username !== undefined) userInfo.username = req.userInfo.username;
  if (req.userInfo?.uid !== undefined) userInfo.uid = req.userInfo.uid;
  if (req.userInfo?.groups !== undefined) userInfo.groups = req.userInfo.groups;
  if (req.userInfo?.extra !== undefined) userInfo.extra = req.userInfo.extra;
  const request: { [key: string]: JsonValue } = {
    operation,
    object,
    oldObject,
    userInfo,
    roles: req.roles ?? [],
    clusterRoles: req.clusterRoles ?? [],
    namespace: subject.metadata?.namespace || (req.requestNamespace ?? ""),
    name: subject.metadata?.name || (req.requestName ?? ""),
    kind: { group: kind.group, version: kind.version, kind: kind.kind },
    dryRun: req.dryRun ?? false,
  };
  if (req.subresource) request.subResource = req.subresource;
  const ctx: JsonContext = { request };
  const username = req.userInfo?.username ?? "";
  if (username.startsWith(SERVICE_ACCOUNT_PREFIX)) {
    const [ns, name] = username.slice(SERVICE_ACCOUNT_PREFIX.length).split(":");
    ctx.serviceAccountName = name ?? "";
    ctx.serviceAccountNamespace = ns ?? "";
  } else {
    ctx.serviceAccountName = "";
    ctx.serviceAccountNamespace = "";
  }
  // As upstream, `images` come from the new object: a DELETE request has none.
  if (withImages && operation !== "DELETE") {
    const images = extractImages(asJson(req.resource));
    if (images !== undefined) ctx.images = images;
  }
  return ctx;
}
