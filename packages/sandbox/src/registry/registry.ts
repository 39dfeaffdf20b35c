/**
 * The served resources: the built-ins plus whatever the stored CRDs declare, looked up by
 * group/version/plural (URL paths) and listed per group/version (discovery).
 */
import type { JsonObject } from "@kyverno-ts/api";
import { builtinResources } from "./builtins.js";
import { resourcesOfCrd } from "./crd.js";
import type { ResourceType } from "./types.js";

/** One API group and the versions it serves, preferred first. */
export interface ServedGroup {
  name: string;
  versions: string[];
}

/** Lookup of served resources; refreshed whenever CRDs change. */
export interface ResourceRegistry {
  /** The resource at `group/version/plural`, if served. */
  find(group: string, version: string, plural: string): ResourceType | undefined;
  /** All resources served at a group/version. */
  resourcesOf(group: string, version: string): ResourceType[];
  /** All served groups (the core group first, named ""). */
  groups(): ServedGroup[];
  /** Every served resource. */
  all(): ResourceType[];
  /** The resource of a storage key at its storage version (for GC and namespace cleanup). */
  byStorageKey(storageKey: string): ResourceType | undefined;
  /** Replaces the custom resources with those of `crds`. */
  setCrds(crds: readonly JsonObject[]): void;
}

/** Creates the registry with the built-in resources. */
export function createRegistry(): ResourceRegistry {
  const builtins = builtinResources();
  let resources = builtins;
  let index = indexOf(resources);
  return {
    find: (group, version, plural) => index.get(`${group}/${version}/${plural}`),
    resourcesOf: (group, version) => resources.filter((r) => r.group === group && r.version === version),
    groups: () => groupsOf(resources),
    all: () => resources,
    byStorageKey: (key) =>
      resources.find(
        (r) =>
          r.storageKey === key &&
          (r.group === "" ? r.version : `${r.group}/${r.version}`) === r.storageVersion,
      ) ?? resources.find((r) => r.storageKey === key),
    setCrds(crds) {
      const builtinKeys = new Set(builtins.map((b) => `${b.group}/${b.plural}`));
      const custom = crds.flatMap(resourcesOfCrd).filter((r) => !builtinKeys.has(`${r.group}/${r.plural}`));
      resources = [...builtins, ...custom];
      index = indexOf(resources);
    },
  };
}

function indexOf(resources: ResourceType[]): Map<string, ResourceType> {
  return new Map(resources.map((r) => [`${r.group}/${r.version}/${r.plural}`, r]));
}

function groupsOf(resources: ResourceType[]): ServedGroup[] {
  const groups = new Map<string, string[]>();
  for (const r of resources) {
    const versions = groups.get(r.group) ?? [];
    if (!versions.includes(r.version)) versions.push(r.version);
    groups.set(r.group, versions);
  }
  return [...groups].map(([name, versions]) => ({ name, versions: sortVersions(versions) }));
}

/** Kubernetes version priority: GA > beta > alpha, higher numbers first. */
export function sortVersions(versions: string[]): string[] {
  const rank = (v: string): [number, number, number] => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (m === null) return [3, 0, 0];
    const level = m[2] === undefined ? 0 : m[2] === "beta" ? 1 : 2;
    return [level, -Number(m[1]), -Number(m[3] ?? 0)];
  };
  return [...versions].sort((a, b) => {
    const [x, y] = [rank(a), rank(b)];
    return x[0] - y[0] || x[1] - y[1] || x[2] - y[2] || a.localeCompare(b);
  });
}
