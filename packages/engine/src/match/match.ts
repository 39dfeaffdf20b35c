import type { MatchResources, ResourceFilter } from "@kyverno-ts/api";
import { type KindListParser, parseKindList } from "./kind.js";
import type { MatchRequest } from "./request.js";
import { matchesResourceFilter } from "./resource-filter.js";

/**
 * True when a rule applies to the request: the policy namespace (if any) is the resource's, `match`
 * selects it and `exclude` does not. Use `matchesMatchResources` alone for blocks without an exclude,
 * such as a PolicyException's `match`. `parse` reads `kinds` lists (engines pass a caching one).
 */
export function matchesRule(
  match: MatchResources,
  exclude: MatchResources | undefined,
  req: MatchRequest,
  parse: KindListParser = parseKindList,
): boolean {
  if (req.policyNamespace && req.policyNamespace !== (req.resource.metadata?.namespace ?? "")) return false;
  if (!matchesMatchResources(match, req, parse)) return false;
  // Exclude blocks evaluate like match blocks: `any` excludes when one filter matches, `all` when every
  // filter does; empty filters never exclude.
  return exclude === undefined || !matchesMatchResources(exclude, req, parse);
}

/**
 * True when a match block selects the request: `any` needs one filter to match, `all` needs every one,
 * and the legacy form (filter fields directly in the block) is one filter. An empty block matches nothing.
 */
export function matchesMatchResources(
  m: MatchResources,
  req: MatchRequest,
  parse: KindListParser = parseKindList,
): boolean {
  if (m.any !== undefined && m.any.length > 0) {
    for (const f of m.any) if (matchesResourceFilter(f, req, parse)) return true;
    return false;
  }
  if (m.all !== undefined && m.all.length > 0) {
    for (const f of m.all) if (!matchesResourceFilter(f, req, parse)) return false;
    return true;
  }
  return matchesResourceFilter(legacyFilter(m), req, parse);
}

function legacyFilter(m: MatchResources): ResourceFilter {
  const filter: ResourceFilter = {};
  if (m.resources !== undefined) filter.resources = m.resources;
  if (m.subjects !== undefined) filter.subjects = m.subjects;
  if (m.roles !== undefined) filter.roles = m.roles;
  if (m.clusterRoles !== undefined) filter.clusterRoles = m.clusterRoles;
  return filter;
}
