/** Splits a request path into a discovery document or a resource address, as kube-apiserver's mux does. */
import type { ResourceRegistry } from "../registry/registry.js";

/** Where a request goes. */
export type Route =
  | { kind: "version" | "health" | "api" | "apis" | "openapiRoot" }
  | { kind: "group"; group: string }
  | { kind: "groupVersion"; group: string; version: string }
  | { kind: "openapi"; group: string; version: string }
  | {
      kind: "resource";
      group: string;
      version: string;
      namespace: string;
      plural: string;
      name: string;
      subresource: string;
      /** The URL addressed a namespace (`/namespaces/<ns>/…`). */
      namespaced: boolean;
    }
  | { kind: "notFound" };

/** Routes a path (`/apis/apps/v1/namespaces/default/deployments/web/scale`). */
export function route(path: string, registry: ResourceRegistry): Route {
  const segments = path
    .split("/")
    .filter((s) => s !== "")
    .map(decodeURIComponent);
  const [first, ...rest] = segments;
  if (first === "version" && rest.length === 0) return { kind: "version" };
  if ((first === "healthz" || first === "livez" || first === "readyz") && rest.length <= 1)
    return { kind: "health" };
  if (first === "openapi") {
    if (rest[0] !== "v3") return { kind: "notFound" };
    if (rest.length === 1) return { kind: "openapiRoot" };
    if (rest[1] === "api" && rest.length === 3) return { kind: "openapi", group: "", version: rest[2] ?? "" };
    if (rest[1] === "apis" && rest.length === 4)
      return { kind: "openapi", group: rest[2] ?? "", version: rest[3] ?? "" };
    return { kind: "notFound" };
  }
  if (first === "api") {
    if (rest.length === 0) return { kind: "api" };
    const [version, ...tail] = rest;
    return resourceRoute("", version ?? "", tail, registry);
  }
  if (first === "apis") {
    if (rest.length === 0) return { kind: "apis" };
    const [group, version, ...tail] = rest;
    if (version === undefined) return { kind: "group", group: group ?? "" };
    return resourceRoute(group ?? "", version, tail, registry);
  }
  return { kind: "notFound" };
}

function resourceRoute(group: string, version: string, tail: string[], registry: ResourceRegistry): Route {
  if (tail.length === 0) return { kind: "groupVersion", group, version };
  const base = { kind: "resource" as const, group, version };
  if (tail[0] === "namespaces" && tail.length >= 3) {
    const plural = tail[2] ?? "";
    const resource = registry.find(group, version, plural);
    if (resource?.namespaced && tail.length <= 5) {
      return {
        ...base,
        namespace: tail[1] ?? "",
        plural,
        name: tail[3] ?? "",
        subresource: tail[4] ?? "",
        namespaced: true,
      };
    }
  }
  if (tail.length > 3) return { kind: "notFound" };
  return {
    ...base,
    namespace: "",
    plural: tail[0] ?? "",
    name: tail[1] ?? "",
    subresource: tail[2] ?? "",
    namespaced: false,
  };
}
