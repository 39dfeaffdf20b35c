/**
 * API discovery: `/version`, the legacy documents (`/api`, `/api/v1`, `/apis`, `/apis/<g>`,
 * `/apis/<g>/<v>`) and the aggregated `apidiscovery.k8s.io/v2` lists modern kubectl asks for.
 */
import type { JsonObject } from "@kyverno-ts/api";
import type { ResourceRegistry, ServedGroup } from "../registry/registry.js";
import { apiVersionOf, type ResourceType } from "../registry/types.js";

/** The Kubernetes version the sandbox reports (what it emulates). */
export const EMULATED_VERSION = {
  major: "1",
  minor: "32",
  gitVersion: "v1.32.0+kyverno-ts-sandbox",
} as const;

/** The media type of aggregated discovery responses. */
export const AGGREGATED_DISCOVERY = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

/** Whether the client asked for aggregated discovery (v2; v2beta1 is answered with v2 only if listed). */
export function wantsAggregated(accept: string | undefined): boolean {
  for (const range of (accept ?? "").split(",")) {
    const params = range.split(";").map((p) => p.trim());
    if (
      params.includes("g=apidiscovery.k8s.io") &&
      params.includes("v=v2") &&
      params.includes("as=APIGroupDiscoveryList")
    )
      return true;
  }
  return false;
}

/** `/version`. */
export function versionInfo(): JsonObject {
  return {
    ...EMULATED_VERSION,
    gitCommit: "0000000000000000000000000000000000000000",
    gitTreeState: "clean",
    buildDate: "2025-01-01T00:00:00Z",
    goVersion: "go1.23.4",
    compiler: "gc",
    platform: "linux/amd64",
  };
}

/** `/api`. */
export function coreVersions(serverAddress: string): JsonObject {
  return {
    kind: "APIVersions",
    versions: ["v1"],
    serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress }],
  };
}

function groupDoc(group: ServedGroup): JsonObject {
  const versions = group.versions.map((version) => ({ groupVersion: `${group.name}/${version}`, version }));
  return { name: group.name, versions, preferredVersion: versions[0] ?? null };
}

/** `/apis`. */
export function groupList(registry: ResourceRegistry): JsonObject {
  return {
    kind: "APIGroupList",
    apiVersion: "v1",
    groups: registry
      .groups()
      .filter((g) => g.name !== "")
      .map(groupDoc),
  };
}

/** `/apis/<group>`, or `undefined` when the group is not served. */
export function groupInfo(registry: ResourceRegistry, name: string): JsonObject | undefined {
  const group = registry.groups().find((g) => g.name === name && name !== "");
  return group === undefined ? undefined : { kind: "APIGroup", apiVersion: "v1", ...groupDoc(group) };
}

const SUBRESOURCE_VERBS: Record<string, string[]> = {
  status: ["get", "patch", "update"],
  scale: ["get", "patch", "update"],
  ephemeralcontainers: ["get", "patch", "update"],
  finalize: ["update"],
  eviction: ["create"],
  exec: ["create", "get"],
  attach: ["create", "get"],
  portforward: ["create", "get"],
  token: ["create"],
};

function subresourceKind(r: ResourceType, sub: string): { group: string; version: string; kind: string } {
  if (sub === "scale") return { group: "autoscaling", version: "v1", kind: "Scale" };
  if (sub === "eviction") return { group: "policy", version: "v1", kind: "Eviction" };
  if (sub === "exec") return { group: "", version: "v1", kind: "PodExecOptions" };
  if (sub === "attach") return { group: "", version: "v1", kind: "PodAttachOptions" };
  if (sub === "portforward") return { group: "", version: "v1", kind: "PodPortForwardOptions" };
  if (sub === "token") return { group: "authentication.k8s.io", version: "v1", kind: "TokenRequest" };
  return { group: "", version: "", kind: r.kind };
}

/** `/api/v1` or `/apis/<g>/<v>`, or `undefined` when the group/version is not served. */
export function resourceList(
  registry: ResourceRegistry,
  group: string,
  version: string,
): JsonObject | undefined {
  const resources = registry.resourcesOf(group, version);
  if (resources.length === 0) return undefined;
  const entries: JsonObject[] = [];
  for (const r of resources) {
    const entry: JsonObject = {
      name: r.plural,
      singularName: r.singular,
      namespaced: r.namespaced,
      kind: r.kind,
      verbs: [...r.verbs],
    };
    if (r.shortNames.length > 0) entry.shortNames = [...r.shortNames];
    if (r.categories.length > 0) entry.categories = [...r.categories];
    entries.push(entry);
    for (const sub of r.subresources) {
      const k = subresourceKind(r, sub);
      const subEntry: JsonObject = {
        name: `${r.plural}/${sub}`,
        singularName: "",
        namespaced: r.namespaced,
        kind: k.kind,
        verbs: SUBRESOURCE_VERBS[sub] ?? [],
      };
      if (k.group !== "") subEntry.group = k.group;
      if (k.version !== "") subEntry.version = k.version;
      entries.push(subEntry);
    }
  }
  return {
    kind: "APIResourceList",
    apiVersion: "v1",
    groupVersion: apiVersionOf({ group, version }),
    resources: entries,
  };
}

function discoveryResource(r: ResourceType): JsonObject {
  const entry: JsonObject = {
    resource: r.plural,
    responseKind: { group: "", version: "", kind: r.kind },
    scope: r.namespaced ? "Namespaced" : "Cluster",
    singularResource: r.singular,
    verbs: [...r.verbs],
  };
  if (r.shortNames.length > 0) entry.shortNames = [...r.shortNames];
  if (r.categories.length > 0) entry.categories = [...r.categories];
  if (r.subresources.length > 0)
    entry.subresources = r.subresources.map((sub) => ({
      subresource: sub,
      responseKind: subresourceKind(r, sub),
      verbs: SUBRESOURCE_VERBS[sub] ?? [],
    }));
  return entry;
}

/** The aggregated discovery document of `/api` (`core`) or `/apis` (every other group). */
export function aggregatedDiscovery(registry: ResourceRegistry, core: boolean): JsonObject {
  const items = registry
    .groups()
    .filter((g) => (g.name === "") === core)
    .map(
      (g): JsonObject => ({
        metadata: core
          ? { creationTimestamp: null }
          : ({ name: g.name, creationTimestamp: null } as JsonObject),
        versions: g.versions.map((version) => ({
          version,
          resources: registry.resourcesOf(g.name, version).map(discoveryResource),
          freshness: "Current",
        })),
      }),
    );
  return { kind: "APIGroupDiscoveryList", apiVersion: "apidiscovery.k8s.io/v2", metadata: {}, items };
}
