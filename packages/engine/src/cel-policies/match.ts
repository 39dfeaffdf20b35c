/**
 * `matchConstraints` of the CEL policy kinds and of Kubernetes' admission policies, as the API
 * server's matcher evaluates them: resource rules (group, version, resource with subresource,
 * operation, scope, names), exclude rules, namespace and object selectors. Label selectors are
 * Kubernetes' (no Kyverno wildcards).
 */
import type { KubeObject, LabelSelector, MatchConstraints, ResourceRule } from "@kyverno-ts/api";
import { matchLabelSelector } from "@kyverno-ts/k8s";
import type { RequestTarget } from "./request.js";

function anyOf(values: readonly string[] | undefined, value: string): boolean {
  return values === undefined || values.length === 0 ? false : values.includes("*") || values.includes(value);
}

function matchesResource(
  patterns: readonly string[] | undefined,
  resource: string,
  subresource: string,
): boolean {
  if (patterns === undefined) return false;
  const full = subresource === "" ? resource : `${resource}/${subresource}`;
  return patterns.some((p) => {
    if (p === "*") return subresource === "";
    if (p === "*/*") return true;
    if (p === full) return true;
    if (p.startsWith("*/")) return subresource !== "" && p.slice(2) === subresource;
    if (p.endsWith("/*")) return subresource !== "" && p.slice(0, -2) === resource;
    return false;
  });
}

/** Whether one resource rule selects the request. */
function matchesResourceRule(rule: ResourceRule, t: RequestTarget): boolean {
  if (!anyOf(rule.apiGroups, t.group)) return false;
  if (!anyOf(rule.apiVersions, t.version)) return false;
  if (!matchesResource(rule.resources, t.resource, t.subresource)) return false;
  if (rule.operations !== undefined && rule.operations.length > 0 && !anyOf(rule.operations, t.operation))
    return false;
  const scope = rule.scope ?? "*";
  if (scope === "Cluster" && t.namespace !== "") return false;
  if (scope === "Namespaced" && t.namespace === "") return false;
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(t.name);
}

function selects(selector: LabelSelector | undefined, labels: Record<string, string>): boolean {
  if (selector === undefined) return true;
  return matchLabelSelector(selector, labels);
}

function labelsOf(o: KubeObject | undefined): Record<string, string> {
  return (o?.metadata?.labels as Record<string, string> | undefined) ?? {};
}

/** What matching needs beside the request target: namespace labels and the old object. */
export interface MatchInput {
  readonly target: RequestTarget;
  readonly namespaceLabels: Record<string, string> | undefined;
  readonly oldObject: KubeObject | undefined;
}

/**
 * Whether `constraints` select the request. A request for a cluster-scoped object passes the
 * namespace selector (except a Namespace itself, matched by its own labels); the object selector
 * holds when the new or the old object matches.
 */
export function matchesConstraints(constraints: MatchConstraints | undefined, input: MatchInput): boolean {
  if (constraints === undefined) return false;
  const rules = constraints.resourceRules ?? [];
  let selected = rules.some((r) => matchesResourceRule(r, input.target));
  // `matchPolicy: Equivalent` (the default) also selects the same resource through another
  // group/version it is served under (a Deployment of extensions/v1beta1 for apps/v1 rules).
  if (!selected && constraints.matchPolicy !== "Exact") {
    const t = input.target;
    selected = equivalents(t.group, t.version, t.resource).some((gv) =>
      rules.some((r) => matchesResourceRule(r, { ...t, group: gv.group, version: gv.version })),
    );
  }
  return selected && matchesNarrowing(constraints, input);
}

/** Group/versions under which Kubernetes served the same resources (what `Equivalent` matching uses). */
const EQUIVALENT_VERSIONS: ReadonlyArray<{ resources: readonly string[]; versions: readonly string[] }> = [
  {
    resources: ["deployments", "daemonsets", "replicasets", "statefulsets"],
    versions: ["apps/v1", "apps/v1beta2", "apps/v1beta1", "extensions/v1beta1"],
  },
  {
    resources: ["ingresses"],
    versions: ["networking.k8s.io/v1", "networking.k8s.io/v1beta1", "extensions/v1beta1"],
  },
  { resources: ["networkpolicies"], versions: ["networking.k8s.io/v1", "extensions/v1beta1"] },
  { resources: ["podsecuritypolicies"], versions: ["policy/v1beta1", "extensions/v1beta1"] },
  { resources: ["cronjobs"], versions: ["batch/v1", "batch/v1beta1"] },
  { resources: ["poddisruptionbudgets"], versions: ["policy/v1", "policy/v1beta1"] },
  {
    resources: ["horizontalpodautoscalers"],
    versions: ["autoscaling/v2", "autoscaling/v1", "autoscaling/v2beta2", "autoscaling/v2beta1"],
  },
  { resources: ["events"], versions: ["v1", "events.k8s.io/v1", "events.k8s.io/v1beta1"] },
];

function equivalents(
  group: string,
  version: string,
  resource: string,
): Array<{ group: string; version: string }> {
  const own = group === "" ? version : `${group}/${version}`;
  const entry = EQUIVALENT_VERSIONS.find((e) => e.resources.includes(resource) && e.versions.includes(own));
  if (entry === undefined) return [];
  return entry.versions
    .filter((gv) => gv !== own)
    .map((gv) =>
      gv.includes("/")
        ? { group: gv.slice(0, gv.indexOf("/")), version: gv.slice(gv.indexOf("/") + 1) }
        : { group: "", version: gv },
    );
}

/**
 * The parts of constraints that only narrow: exclude rules and the namespace and object selectors.
 * A binding's `matchResources` without resource rules narrows the policy's requests with these.
 */
export function matchesNarrowing(constraints: MatchConstraints, input: MatchInput): boolean {
  const t = input.target;
  if ((constraints.excludeResourceRules ?? []).some((r) => matchesResourceRule(r, t))) return false;
  if (constraints.namespaceSelector !== undefined) {
    const isNamespace = t.kind === "Namespace" && t.group === "";
    if (isNamespace) {
      if (!selects(constraints.namespaceSelector, labelsOf(t.subject))) return false;
    } else if (t.namespace !== "" && !selects(constraints.namespaceSelector, input.namespaceLabels ?? {}))
      return false;
  }
  if (constraints.objectSelector !== undefined) {
    const matchesNew = selects(constraints.objectSelector, labelsOf(t.subject));
    const matchesOld =
      input.oldObject !== undefined && selects(constraints.objectSelector, labelsOf(input.oldObject));
    if (!matchesNew && !matchesOld) return false;
  }
  return true;
}
