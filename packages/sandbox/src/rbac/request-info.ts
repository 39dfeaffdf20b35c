/**
 * The authorization attributes of an HTTP request, derived from its method and path as kube-apiserver's
 * `RequestInfoFactory` does: `/api/v1/…` and `/apis/<group>/<version>/…` are resource requests (verb
 * from the method; a GET of a collection is `list`, or `watch` with `watch=true`; a DELETE of one is
 * `deletecollection`; `fieldSelector=metadata.name=x` names the object), everything else is a
 * non-resource request whose verb is the lower-cased method.
 */
import type { RequestAttributes } from "./rules.js";

const NAMESPACE_SUBRESOURCES = new Set(["status", "finalize"]);
const METHOD_VERBS: Record<string, string> = {
  POST: "create",
  GET: "get",
  HEAD: "get",
  PUT: "update",
  PATCH: "patch",
  DELETE: "delete",
};

/** The attributes of `method path?query`. */
export function requestAttributes(method: string, url: URL): RequestAttributes {
  const path = url.pathname;
  const nonResource: RequestAttributes = { kind: "nonResource", verb: method.toLowerCase(), path };
  let parts = path.split("/").filter((p) => p !== "");
  if (parts.length < 3 || (parts[0] !== "api" && parts[0] !== "apis")) return nonResource;
  let group = "";
  if (parts[0] === "apis") {
    if (parts.length < 4) return nonResource;
    group = parts[1] ?? "";
    parts = parts.slice(2);
  } else parts = parts.slice(1);
  const version = parts[0] ?? "";
  parts = parts.slice(1);
  let verb = METHOD_VERBS[method.toUpperCase()] ?? "";
  if (parts[0] === "watch" && parts.length >= 2) {
    verb = "watch";
    parts = parts.slice(1);
  }
  let namespace = "";
  if (parts[0] === "namespaces" && parts.length > 1) {
    namespace = parts[1] ?? "";
    if (parts.length > 2 && !NAMESPACE_SUBRESOURCES.has(parts[2] ?? "")) parts = parts.slice(2);
  }
  const resource = parts[0] ?? "";
  let name = parts[1] ?? "";
  const subresource = parts[2] ?? "";
  if (name === "" && verb === "get") {
    const watch = url.searchParams.get("watch");
    verb = watch !== null && watch !== "false" && watch !== "0" ? "watch" : "list";
    const selected = nameFromFieldSelector(url.searchParams.get("fieldSelector"));
    if (selected !== undefined) name = selected;
  }
  if (name === "" && verb === "delete") verb = "deletecollection";
  return { kind: "resource", verb, group, version, resource, subresource, namespace, name };
}

/** `metadata.name=x` (or `==`) when the field selector requires exactly that name. */
function nameFromFieldSelector(selector: string | null): string | undefined {
  if (selector === null) return undefined;
  for (const term of selector.split(",")) {
    const m = /^\s*metadata\.name\s*==?\s*(.+?)\s*$/.exec(term);
    const name = m?.[1];
    if (name !== undefined && name !== "." && name !== ".." && !/[/%]/.test(name)) return name;
  }
  return undefined;
}
