/**
 * The API-server paths `apiCall.urlPath` context entries name (`/api/v1/namespaces/prod/pods`,
 * `/apis/apps/v1/deployments?labelSelector=app=web`), read as the client's typed requests: the
 * controller's client has no raw GET, and a typed request goes through its rate limits and metrics.
 * Subresources and non-resource paths (`/version`, `/healthz`) are not supported.
 */
import type { KubeObject } from "@kyverno-ts/api";
import { builtinKindOf, type KubeClient } from "@kyverno-ts/kube";

/** A resource path taken apart. */
export interface ApiPath {
  apiVersion: string;
  /** The plural resource name (`pods`). */
  resource: string;
  /** Empty for cluster-scoped resources and for lists across namespaces. */
  namespace: string;
  /** Empty for a collection. */
  name: string;
  labelSelector?: string;
  fieldSelector?: string;
}

/** Parses a urlPath; a string says why it cannot be read. */
export function parseApiPath(urlPath: string): ApiPath | string {
  const [path = "", query = ""] = urlPath.split("?", 2);
  const parts = path.split("/").filter((p) => p !== "");
  let apiVersion: string;
  let rest: string[];
  if (parts[0] === "api" && parts.length >= 2) {
    apiVersion = parts[1] as string;
    rest = parts.slice(2);
  } else if (parts[0] === "apis" && parts.length >= 3) {
    apiVersion = `${parts[1]}/${parts[2]}`;
    rest = parts.slice(3);
  } else return `${urlPath} is not a resource path (/api/... or /apis/...)`;
  let namespace = "";
  // `/api/v1/namespaces` and `/api/v1/namespaces/x` address Namespaces; longer forms are namespaced.
  if (rest[0] === "namespaces" && rest.length >= 3) {
    namespace = decodeURIComponent(rest[1] as string);
    rest = rest.slice(2);
  }
  if (rest.length === 0 || rest.length > 2) return `${urlPath}: subresources are not supported`;
  const params = new URLSearchParams(query);
  const labelSelector = params.get("labelSelector") ?? undefined;
  const fieldSelector = params.get("fieldSelector") ?? undefined;
  return {
    apiVersion,
    resource: rest[0] as string,
    namespace,
    name: rest[1] === undefined ? "" : decodeURIComponent(rest[1]),
    ...(labelSelector === undefined ? {} : { labelSelector }),
    ...(fieldSelector === undefined ? {} : { fieldSelector }),
  };
}

/**
 * Finds the kind served as `resource` in `apiVersion`: a built-in kind (the kube package's table) is
 * confirmed through discovery (cached by the client); others are looked up among the cluster's
 * CustomResourceDefinitions.
 */
export async function kindOfResource(
  client: KubeClient,
  apiVersion: string,
  resource: string,
  signal?: AbortSignal,
): Promise<string | undefined> {
  const [group = "", version] = apiVersion.includes("/") ? apiVersion.split("/") : ["", apiVersion];
  const builtin = builtinKindOf(group, resource);
  if (builtin !== undefined) {
    const info = await client.resource(apiVersion, builtin, signal);
    if (info.ok && info.value.name === resource) return builtin;
  }
  const crds = await client.list<KubeObject>({
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    ...(signal === undefined ? {} : { signal }),
  });
  if (!crds.ok) return undefined;
  for (const crd of crds.value.items) {
    const spec = crd.spec as
      | {
          group?: unknown;
          names?: { plural?: unknown; kind?: unknown };
          versions?: Array<{ name?: unknown }>;
        }
      | undefined;
    const names = spec?.names;
    if (spec?.group !== group || names?.plural !== resource || typeof names.kind !== "string") continue;
    if (spec?.versions?.some((v) => v.name === version)) return names.kind;
  }
  return undefined;
}
