import type { MatchResources, ResourceFilter } from "@kyverno-ts/api";
import type { MatchRequest } from "./request.js";
import { matchesResourceFilter } from "./resource-filter.js";

/**
 * True when a rule applies to the request: the policy namespace (if any) is the resource's, `match`
 * selects it and `exclude` does not. Use `matchesMatchResources` alone for blocks without an exclude,
 * such as a PolicyException's `match`.
 */
export function matchesRule(
  match: MatchResources,
  exclude: MatchResources | undefined,
  req: MatchRequest,
): boolean {
  if (req.policyNamespace && req.policyNamespace !== (req.resource.metadata?.namespace ?? "")) return false;
  if (!matchesMatchResources(match, req)) return false;
  // Exclude blocks evaluate like match blocks: `any` excludes when one filter matches, `all` when every
  // filter does; empty filters never exclude.
  return exclude === undefined || !matchesMatchResources(exclude, req);
}

/**
 * True when a match block selects the request: `any` needs one filter to match, `all` needs every one,
 * and the legacy form (filter fields directly in the block) is one filter. An empty block matches nothing.
 */
export function matchesMatchResources(m: MatchResources, req: MatchRequest): boolean {
  if (m.any !== undefined && m.any.length > 0) return m.any.some((f) => matchesResourceFilter(f, req));
  if (m.all !== undefined && m.all.length > 0) return m.all.every((f) => matchesResourceFilter(f, req));
  return matchesResourceFilter(legacyFilter(m), req);
}

function legacyFilter(m: MatchResources): ResourceFilter {
  const filter: ResourceFilter = {};
  if (m.resources !== undefined) filter.resources = m.resources;
  if (m.subjects !== undefined) filter.subjects = m.subjects;
  if (m.roles !== undefined) filter.roles = m.roles;
  if (m.clusterRoles !== undefined) filter.clusterRoles = m.clusterRoles;
  return filter;
}
