import type { KubeObject, ResourceDescription, ResourceFilter } from "@kyverno-ts/api";
import { matchWildcard } from "../wildcard/wildcard.js";
import { type KindListParser, matchKinds, parseKindList } from "./kind.js";
import type { MatchRequest } from "./request.js";
import { matchWildcardSelector } from "./selector.js";
import { matchRoles, matchSubjects } from "./subjects.js";

/**
 * True when one filter of a match/exclude block selects the request: every attribute it sets holds
 * (AND across attributes, OR within a list). An empty filter selects nothing, so it neither matches nor
 * excludes. Use `matchesMatchResources` for a whole `any` / `all` block. `parse` reads `kinds` lists
 * (a caching parser saves re-parsing the selectors of compiled policies).
 */
export function matchesResourceFilter(
  filter: ResourceFilter,
  req: MatchRequest,
  parse: KindListParser = parseKindList,
): boolean {
  if (isEmptyFilter(filter)) return false;
  const resources = filter.resources;
  if (resources !== undefined && !matchesDescription(resources, req, parse)) return false;
  if (nonEmpty(filter.roles) && !matchRoles(filter.roles, req.roles)) return false;
  if (nonEmpty(filter.clusterRoles) && !matchRoles(filter.clusterRoles, req.clusterRoles)) return false;
  if (nonEmpty(filter.subjects) && !matchSubjects(filter.subjects, req.userInfo)) return false;
  return true;
}

function matchesDescription(rd: ResourceDescription, req: MatchRequest, parse: KindListParser): boolean {
  if (nonEmpty(rd.operations) && !rd.operations.includes(req.operation)) return false;
  if (nonEmpty(rd.kinds) && !matchKinds(rd.kinds, req, parse)) return false;
  const obj = req.resource;
  const name = resourceName(obj);
  if (rd.name !== undefined && rd.name !== "" && !matchWildcard(rd.name, name)) return false;
  if (nonEmpty(rd.names) && !rd.names.some((n) => matchWildcard(n, name))) return false;
  if (nonEmpty(rd.namespaces)) {
    // A Namespace is matched on its own name, as upstream.
    const ns = obj.kind === "Namespace" ? name : (obj.metadata?.namespace ?? "");
    if (!rd.namespaces.some((n) => matchWildcard(n, ns))) return false;
  }
  if (rd.annotations !== undefined && !matchAnnotations(rd.annotations, obj.metadata?.annotations ?? {})) {
    return false;
  }
  if (rd.selector !== undefined && !matchWildcardSelector(rd.selector, obj.metadata?.labels ?? {}))
    return false;
  if (rd.namespaceSelector !== undefined) {
    // Upstream: a namespace selector never selects a Namespace itself.
    if (obj.kind === "Namespace") return false;
    if (!matchWildcardSelector(rd.namespaceSelector, req.namespaceLabels ?? {})) return false;
  }
  return true;
}

/** Name of the object, or its `generateName` when the server has not named it yet. */
function resourceName(obj: KubeObject): string {
  const meta = obj.metadata;
  if (meta?.name) return meta.name;
  const generated = meta?.generateName;
  return typeof generated === "string" ? generated : "";
}

/** Every wanted annotation is matched (key and value as wildcards) by some annotation of the object. */
function matchAnnotations(wanted: Record<string, string>, actual: Record<string, string>): boolean {
  const entries = Object.entries(actual);
  return Object.entries(wanted).every(([key, value]) =>
    entries.some(([k, v]) => matchWildcard(key, k) && matchWildcard(value, v)),
  );
}

function isEmptyFilter(filter: ResourceFilter): boolean {
  return (
    isEmptyDescription(filter.resources) &&
    !nonEmpty(filter.subjects) &&
    !nonEmpty(filter.roles) &&
    !nonEmpty(filter.clusterRoles)
  );
}

function isEmptyDescription(rd: ResourceDescription | undefined): boolean {
  if (rd === undefined) return true;
  return (
    !nonEmpty(rd.kinds) &&
    !rd.name &&
    !nonEmpty(rd.names) &&
    !nonEmpty(rd.namespaces) &&
    !nonEmpty(rd.operations) &&
    (rd.annotations === undefined || Object.keys(rd.annotations).length === 0) &&
    rd.selector === undefined &&
    rd.namespaceSelector === undefined
  );
}

function nonEmpty<T>(list: readonly T[] | undefined): list is readonly T[] {
  return list !== undefined && list.length > 0;
}
