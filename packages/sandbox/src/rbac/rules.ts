/**
 * RBAC policy rules and how one rule covers a request, exactly as kube-apiserver's `RuleAllows`
 * (plugin/pkg/auth/authorizer/rbac): verbs, API groups, `resource/subresource` (with `*` and
 * `*` + `/subresource`), resource names, and non-resource URLs (exact or `prefix*`).
 */
import type { JsonObject, JsonValue } from "@kyverno-ts/api";

/** One rule of a Role or ClusterRole (`rbac.authorization.k8s.io/v1` PolicyRule). */
export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

/** What a request asks to do, as kube-apiserver's `authorizer.Attributes`. */
export type RequestAttributes = ResourceAttributes | NonResourceAttributes;

/** A request about an API resource. */
export interface ResourceAttributes {
  kind: "resource";
  verb: string;
  group: string;
  version: string;
  resource: string;
  subresource: string;
  /** `""` at the cluster scope (cluster-scoped resources, lists across namespaces). */
  namespace: string;
  name: string;
}

/** A request for a path that is no API resource (`/version`, `/healthz`, discovery). */
export interface NonResourceAttributes {
  kind: "nonResource";
  verb: string;
  path: string;
}

const has = (list: readonly string[] | undefined, value: string): boolean => list?.includes(value) === true;

function verbMatches(rule: PolicyRule, verb: string): boolean {
  return has(rule.verbs, "*") || has(rule.verbs, verb);
}

function groupMatches(rule: PolicyRule, group: string): boolean {
  return has(rule.apiGroups, "*") || has(rule.apiGroups, group);
}

function resourceMatches(rule: PolicyRule, combined: string, subresource: string): boolean {
  for (const r of rule.resources ?? []) {
    if (r === "*" || r === combined) return true;
    if (subresource !== "" && r === `*/${subresource}`) return true;
  }
  return false;
}

function nameMatches(rule: PolicyRule, name: string): boolean {
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(name);
}

function urlMatches(rule: PolicyRule, path: string): boolean {
  for (const url of rule.nonResourceURLs ?? []) {
    if (url === "*" || url === path) return true;
    if (url.endsWith("*") && path.startsWith(url.replace(/\*+$/, ""))) return true;
  }
  return false;
}

/** Whether `rule` grants the request (kube-apiserver's `rbac.RuleAllows`). */
export function ruleAllows(attributes: RequestAttributes, rule: PolicyRule): boolean {
  if (!verbMatches(rule, attributes.verb)) return false;
  if (attributes.kind === "nonResource") return urlMatches(rule, attributes.path);
  const combined =
    attributes.subresource === "" ? attributes.resource : `${attributes.resource}/${attributes.subresource}`;
  return (
    groupMatches(rule, attributes.group) &&
    resourceMatches(rule, combined, attributes.subresource) &&
    nameMatches(rule, attributes.name)
  );
}

function strings(value: JsonValue | undefined): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value.filter((v): v is string => typeof v === "string");
}

/** The well-formed rules of a stored Role or ClusterRole (malformed entries are skipped). */
export function rulesOf(role: JsonObject): PolicyRule[] {
  const rules = Array.isArray(role.rules) ? role.rules : [];
  const out: PolicyRule[] = [];
  for (const entry of rules) {
    if (entry === null || typeof entry !== "object" || Array.isArray(entry)) continue;
    const rule: PolicyRule = { verbs: strings(entry.verbs) ?? [] };
    for (const field of ["apiGroups", "resources", "resourceNames", "nonResourceURLs"] as const) {
      const list = strings(entry[field]);
      if (list !== undefined) rule[field] = list;
    }
    out.push(rule);
  }
  return out;
}

/** A rule as JSON (for stored objects and review responses). */
export function ruleToJson(rule: PolicyRule): JsonObject {
  const out: JsonObject = { verbs: [...rule.verbs] };
  for (const field of ["apiGroups", "resources", "resourceNames", "nonResourceURLs"] as const) {
    const list = rule[field];
    if (list !== undefined) out[field] = [...list];
  }
  return out;
}
